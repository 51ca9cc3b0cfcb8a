/*
 * test-peak-limit: what peak says when a throughput falls short of the
 * documented one (pk_limit_text), on made-up figures: nothing within 2%,
 * the reference kernel's verdict otherwise, nothing without a reference.
 * Then, live on a CPU with a documented int.add throughput (Zen 5: six
 * ALUs, where no layout of adds reached 6 a cycle): int.add reads within
 * 2% of it, or peak says what limits it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "peak/peak-int.h"
#include "tap.h"

static struct peak_insn insn(double ipc, double ref_ipc)
{
	struct peak_insn in;

	memset(&in, 0, sizeof(in));
	in.name = "int.add";
	in.tput.min = 1 / ipc;
	in.ref_insn = "mov r64, imm32";
	in.ref.min = ref_ipc > 0 ? 1 / ref_ipc : 0;
	return in;
}

static void made_up(void)
{
	struct peak_insn in = insn(5.30, 5.95);
	char *s = pk_limit_text(&in, "Zen 5", 6);

	ok(s && strstr(s, "int.add: 5.30 a cycle of the 6 documented (Zen 5)"),
	   "short of the documented figure: said, with both figures");
	ok(s && strstr(s, "mov r64, imm32, which reads no register, runs 5.95") &&
	   strstr(s, "operations that read registers"),
	   "... the reference reaching it: the limit is operations that read registers");
	diag("%s", s ? s : "(none)");
	free(s);
	in = insn(5.30, 5.30);
	s = pk_limit_text(&in, "Zen 5", 6);
	ok(s && strstr(s, "falls short too (5.30 a cycle)") && strstr(s, "another thread"),
	   "... the reference short too: something else takes the slots");
	free(s);
	in = insn(5.89, 5.95);
	s = pk_limit_text(&in, "Zen 5", 6);
	ok(!s, "within 2%% of the documented figure: nothing said");
	free(s);
	in = insn(3.9, 4);
	in.ref_insn = NULL;
	s = pk_limit_text(&in, "Zen 3", 4.5);
	ok(!s, "no reference kernel: nothing said");
	free(s);
	in = insn(5.30, 5.95);
	s = pk_limit_text(&in, "", 0);
	ok(!s, "nothing documented: nothing said");
	free(s);
}

static void live(void)
{
	struct peak_opts o = { .quick = true, .tests = "int.add" };
	const char *fam;
	double lat, ipc, got;
	struct peak_result r;
	char *cause = NULL, *why = NULL;

	if (!peak_expected("int.add", &fam, &lat, &ipc) || !ipc) {
		skip(1, "no documented int.add throughput for this CPU");
		return;
	}
	if (peak_run(&o, &r, &cause) != 0 || r.nr_insns != 1) {
		diag("%s", cause ? cause : "int.add did not run");
		free(cause);
		skip(1, "int.add not runnable here");
		return;
	}
	got = 1 / r.insns[0].tput.min;
	why = peak_limit(&r.insns[0]);
	diag("int.add %.2f a cycle, documented %g (%s); reference %.2f", got, ipc, fam,
	     r.insns[0].ref.min > 0 ? 1 / r.insns[0].ref.min : 0);
	ok(got >= 0.98 * ipc || (why && strstr(why, "int.add: ")),
	   "int.add within 2%% of %g a cycle (%s), or peak says what limits it", ipc, fam);
	if (why)
		diag("limit: %s", why);
	free(why);
	peak_result__exit(&r);
}

int main(void)
{
	made_up();
	live();
	return done_testing();
}
