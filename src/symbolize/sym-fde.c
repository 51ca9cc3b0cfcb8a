/*
 * sym-fde.c: function boundaries from call-frame information. A compiler
 * gives every function an FDE in .eh_frame (kept by strip: unwinders and
 * C++ exceptions need it) or .debug_frame, holding the start and length of
 * its code. In a module without symbols these are where one function ends
 * and the next begins. The table is built once per module from the CIEs
 * and FDEs, sorted, and binary-searched afterwards.
 */
#include "config.h"

#include "symbolize/symbolize-int.h"

#include <string.h>

static uint64_t rd_le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static bool rd_leb(const uint8_t **p, const uint8_t *end, bool sign, uint64_t *v)
{
	unsigned shift = 0;

	*v = 0;
	while (*p < end && shift < 64) {
		uint8_t b = *(*p)++;

		*v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (sign && shift < 64 && (b & 0x40))
				*v |= ~0ull << shift;
			return true;
		}
	}
	return false;
}

bool sym_fde__read_encoded(const uint8_t **p, const uint8_t *end, uint8_t enc, uint64_t at,
			   unsigned addr_size, uint64_t *v)
{
	const uint8_t *q = *p;
	uint64_t x;
	size_t n;

	if (enc == 0xff || (enc & 0x80))	/* DW_EH_PE_omit, DW_EH_PE_indirect */
		return false;
	switch (enc & 0x0f) {
	case 0x00: n = addr_size; break;	/* absptr */
	case 0x01: case 0x09:			/* uleb128, sleb128 */
		if (!rd_leb(&q, end, enc & 0x08, &x))
			return false;
		n = 0;
		break;
	case 0x02: case 0x0a: n = 2; break;
	case 0x03: case 0x0b: n = 4; break;
	case 0x04: case 0x0c: n = 8; break;
	default:
		return false;
	}
	if (n) {
		if (n > (size_t)(end - q))
			return false;
		x = rd_le(q, n);
		if ((enc & 0x08) && n < 8 && (x & (1ull << (8 * n - 1))))
			x |= ~0ull << (8 * n);	/* sign-extend sdataN */
		q += n;
	}
	switch (enc & 0x70) {
	case 0x00: break;
	case 0x10: x += at; break;		/* pcrel */
	default: return false;			/* textrel, datarel, funcrel, aligned */
	}
	*p = q;
	*v = x;
	return true;
}

/*
 * The CIE or FDE at off: its header length (4, or 12 for a 64-bit
 * length) and the offset of the next entry; false at a terminator or a
 * length past the section.
 */
static bool entry_at(const uint8_t *sec, size_t size, size_t off, size_t *hdr, size_t *next)
{
	uint64_t len;

	if (size - off < 4)
		return false;
	len = rd_le(sec + off, 4);
	*hdr = 4;
	if (!len)
		return false;
	if (len == 0xffffffffu) {
		if (size - off < 12)
			return false;
		len = rd_le(sec + off + 4, 8);
		*hdr = 12;
	}
	if (len > size - off - *hdr)
		return false;
	*next = off + *hdr + len;
	return true;
}

struct cie_info {
	size_t off;		/* the CIE's offset in its section */
	bool ok;		/* its FDEs can be read */
	uint8_t enc;		/* FDE pointer encoding (augmentation 'R') */
	unsigned addr_size;
};

/*
 * Read the CIE at off: its FDE pointer encoding and address size. A CIE
 * whose FDEs cannot be read (bad bounds, a segment selector, an unknown
 * augmentation letter before 'R') is not ok.
 */
static void read_cie(const uint8_t *sec, size_t size, size_t off, bool eh, unsigned addr_size,
		     struct cie_info *c)
{
	const uint8_t *q, *end;
	const char *aug;
	size_t hdr, next, idlen;
	uint64_t id, skip;
	uint8_t version;

	c->off = off;
	c->ok = false;
	c->enc = 0;	/* absptr */
	c->addr_size = addr_size;
	if (off >= size || !entry_at(sec, size, off, &hdr, &next))
		return;
	idlen = eh || hdr == 4 ? 4 : 8;
	if (next - off < hdr + idlen + 1)
		return;
	id = rd_le(sec + off + hdr, idlen);
	if (eh ? id != 0 : id != (idlen == 4 ? 0xffffffffull : ~0ull))
		return;
	q = sec + off + hdr + idlen;
	end = sec + next;
	version = *q++;
	if (version != 1 && version != 3 && version != 4)
		return;
	aug = (const char *)q;
	q = memchr(q, 0, end - q);
	if (!q)
		return;
	q++;
	if (version == 4) {
		if (end - q < 2 || q[1] != 0)	/* segment selectors: not handled */
			return;
		if (q[0] == 4 || q[0] == 8)
			c->addr_size = q[0];
		q += 2;
	}
	if (!rd_leb(&q, end, false, &skip) || !rd_leb(&q, end, true, &skip))	/* alignments */
		return;
	if (version == 1) {
		if (q >= end)
			return;
		q++;
	} else if (!rd_leb(&q, end, false, &skip)) {
		return;
	}
	c->ok = true;
	if (aug[0] != 'z')	/* no augmentation data: pointers are absptr */
		return;
	if (!rd_leb(&q, end, false, &skip))
		goto bad;
	for (const char *a = aug + 1; *a; a++) {
		uint64_t dummy;

		switch (*a) {
		case 'R':
			if (q >= end)
				goto bad;
			c->enc = *q;
			return;
		case 'P':	/* personality: its encoding, then the pointer */
			if (q >= end)
				goto bad;
			{
				uint8_t penc = *q++;

				if (!sym_fde__read_encoded(&q, end, penc & 0x0f, 0, c->addr_size,
							   &dummy))
					goto bad;
			}
			break;
		case 'L':	/* LSDA encoding */
			if (q >= end)
				goto bad;
			q++;
			break;
		case 'S': case 'B': case 'G':	/* signal frame, AArch64 keys, MTE: no data */
			break;
		default:
			goto bad;
		}
	}
	return;
bad:
	c->ok = false;
}

size_t sym_fde__walk(const uint8_t *sec, size_t size, uint64_t sec_vaddr, bool eh,
		     unsigned addr_size, sym_fde_fn *fn, void *arg)
{
	struct cie_info cie = { .off = SIZE_MAX };
	size_t off = 0, hdr, next, n = 0;

	if (addr_size != 4 && addr_size != 8)
		return 0;
	for (; off < size && entry_at(sec, size, off, &hdr, &next); off = next) {
		size_t idlen = eh || hdr == 4 ? 4 : 8, cie_off;
		const uint8_t *q, *end = sec + next;
		uint64_t id, lo, len;

		if (next - off < hdr + idlen)
			continue;
		id = rd_le(sec + off + hdr, idlen);
		if (eh ? id == 0 : id == (idlen == 4 ? 0xffffffffull : ~0ull))
			continue;	/* a CIE */
		if (eh) {	/* relative to the pointer's own position */
			if (id > off + hdr)
				continue;
			cie_off = off + hdr - id;
		} else {
			cie_off = id;
		}
		if (cie_off != cie.off)
			read_cie(sec, size, cie_off, eh, addr_size, &cie);
		if (!cie.ok)
			continue;
		q = sec + off + hdr + idlen;
		if (!sym_fde__read_encoded(&q, end, cie.enc, sec_vaddr + (q - sec), cie.addr_size,
					   &lo) ||
		    !sym_fde__read_encoded(&q, end, cie.enc & 0x0f, 0, cie.addr_size, &len))
			continue;
		if (cie.addr_size == 4) {
			lo &= 0xffffffffull;
			len &= 0xffffffffull;
		}
		/* a discarded function's FDE: address 0 or a tombstone */
		if (!lo || !len || lo + len < lo)
			continue;
		fn(arg, off, lo, len);
		n++;
	}
	return n;
}

static int fde_cmp(const void *a, const void *b)
{
	const struct sym_fde *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi > y->hi ? -1 : x->hi < y->hi;	/* the longer first */
}

size_t sym_fde__sort(struct sym_fde *t, size_t n)
{
	size_t i, w = 0;

	if (!n)
		return 0;
	gx_qsort(t, n, sizeof(*t), fde_cmp);
	for (i = 0; i < n; i++) {
		if (t[i].hi <= t[i].lo)
			continue;
		if (w && t[i].lo < t[w - 1].hi) {
			if (t[i].lo == t[w - 1].lo)
				continue;	/* the same function twice */
			t[w - 1].hi = t[i].lo;	/* overlapping: cut where the next starts */
		}
		t[w++] = t[i];
	}
	return w;
}

size_t sym_fde__upper(const struct sym_fde *t, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct sym_fde *sym_fde__find(const struct sym_fde *t, size_t n, uint64_t addr)
{
	size_t k = sym_fde__upper(t, n, addr);

	return k && addr < t[k - 1].hi ? &t[k - 1] : NULL;
}

const uint8_t *sym_fde__section(const struct sym_dso *dso, const char *name, uint64_t *vaddr,
				uint64_t *size)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (!dso->elf || elf_getshdrstrndx(dso->elf, &shstrndx) < 0)
		return NULL;
	while ((scn = elf_nextscn(dso->elf, scn))) {
		const char *sname;
		GElf_Shdr sh;

		/* a compressed section (-gz) is not read: its bytes are no FDEs */
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    (sh.sh_flags & SHF_COMPRESSED))
			continue;
		sname = elf_strptr(dso->elf, shstrndx, sh.sh_name);
		if (sname && !strcmp(sname, name) && sh.sh_offset <= dso->image_size &&
		    sh.sh_size <= dso->image_size - sh.sh_offset) {
			*vaddr = sh.sh_addr;
			*size = sh.sh_size;
			return dso->image + sh.sh_offset;
		}
	}
	return NULL;
}

/*
 * .eh_frame of a file without section headers: .eh_frame_hdr (found by
 * PT_GNU_EH_FRAME) points at it; it runs to its zero terminator, at most
 * to the end of its segment.
 */
static const uint8_t *eh_frame_by_phdr(const struct sym_dso *dso, unsigned addr_size,
				       uint64_t *vaddr, uint64_t *size)
{
	size_t phnum, i;

	if (elf_getphdrnum(dso->elf, &phnum) < 0)
		return NULL;
	for (i = 0; i < phnum; i++) {
		const uint8_t *q;
		uint8_t h[12];
		uint64_t ptr;
		GElf_Phdr ph;

		if (!gelf_getphdr(dso->elf, i, &ph) || ph.p_type != PT_GNU_EH_FRAME)
			continue;
		/* version 1, three encodings, then eh_frame_ptr (4 or 8 bytes) */
		memset(h, 0, sizeof(h));
		if (!sym_dso__read_vaddr(dso, ph.p_vaddr, h, 8) || h[0] != 1)
			return NULL;
		sym_dso__read_vaddr(dso, ph.p_vaddr + 8, h + 8, 4);
		q = h + 4;
		if (!sym_fde__read_encoded(&q, h + 12, h[1], ph.p_vaddr + 4, addr_size, &ptr))
			return NULL;
		for (size_t k = 0; k < dso->nr_loads; k++) {
			const struct sym_load *l = &dso->loads[k];
			uint64_t off = l->offset + (ptr - l->vaddr);

			if (ptr < l->vaddr || ptr >= l->vaddr + l->filesz || off >= dso->image_size)
				continue;
			*vaddr = ptr;
			*size = l->vaddr + l->filesz - ptr;
			if (*size > dso->image_size - off)
				*size = dso->image_size - off;
			return dso->image + off;
		}
		return NULL;
	}
	return NULL;
}

struct fde_sink {
	struct sym_dso *dso;
	size_t cap;
};

static void add_fde(void *arg, uint64_t fde_off, uint64_t lo, uint64_t len)
{
	struct fde_sink *k = arg;
	struct sym_dso *dso = k->dso;

	/* only code: a stray FDE must not claim data or another module's range */
	if (lo < dso->text_lo || lo >= dso->text_hi)
		return;
	dso->fdes = xgrow(dso->fdes, &k->cap, dso->nr_fdes + 1, sizeof(*dso->fdes));
	dso->fdes[dso->nr_fdes].lo = lo;
	dso->fdes[dso->nr_fdes++].hi = len > dso->text_hi - lo ? dso->text_hi : lo + len;
}

void sym_fde__load(struct sym_dso *dso)
{
	struct fde_sink sink = { .dso = dso };
	const uint8_t *sec;
	uint64_t vaddr = 0, size = 0;
	unsigned asz;

	dso->fdes_loaded = true;
	if (!dso->elf || !dso->nr_loads || dso->text_lo >= dso->text_hi)
		return;
	{
		const char *ident = elf_getident(dso->elf, NULL);

		/* the parser reads little-endian fields */
		if (!ident || ident[EI_DATA] != ELFDATA2LSB)
			return;
		asz = ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
	}
	sec = sym_fde__section(dso, ".eh_frame", &vaddr, &size);
	if (!sec)
		sec = eh_frame_by_phdr(dso, asz, &vaddr, &size);
	if (sec)
		sym_fde__walk(sec, size, vaddr, true, asz, add_fde, &sink);
	sec = sym_fde__section(dso, ".debug_frame", &vaddr, &size);
	if (sec)
		sym_fde__walk(sec, size, 0, false, asz, add_fde, &sink);
	dso->nr_fdes = sym_fde__sort(dso->fdes, dso->nr_fdes);
}
