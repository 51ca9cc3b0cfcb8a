/*
 * meta-machine.c: meta.json's model_machine, the machine description a
 * modelled result was priced with (gexplore-record(1), MODELLED RESULTS;
 * gexplore-result(5)), and whether two results were priced alike.
 */
#include "config.h"

#include "perfdata.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "perfdata-int.h"
#include "util/util.h"

json_t *pd_meta_machine__to_json(const struct gx_meta_machine *mm)
{
	json_t *o, *pr;

	if (!mm->name)
		return NULL;
	o = json_object();
	pr = json_object();
	json_object_set_new(o, "name", json_string(gx_utf8(mm->name)));
	if (mm->title)
		json_object_set_new(o, "title", json_string(gx_utf8(mm->title)));
	if (mm->file)
		json_object_set_new(o, "file", json_string(gx_utf8(mm->file)));
	for (size_t i = 0; i < mm->nr_prices; i++) {
		const struct gx_meta_price *p = &mm->prices[i];
		json_t *e = json_object();

		json_object_set_new(e, "value", p->text ? json_string(gx_utf8(p->text)) :
						 json_real(p->value));
		json_object_set_new(e, "source", json_string(gx_utf8(p->source ? p->source : "")));
		json_object_set_new(pr, gx_utf8(p->key), e);
	}
	json_object_set_new(o, "prices", pr);
	return o;
}

void pd_meta_machine__from_json(struct gx_meta *m, json_t *o)
{
	struct gx_meta_machine *mm = &m->machine;
	json_t *pr = json_object_get(o, "prices"), *e;
	const char *key;

	if (!json_is_object(o) || !json_is_string(json_object_get(o, "name")) ||
	    !json_is_object(pr)) {
		gx_meta__add_warning(m, "meta.json: model_machine has no name or prices: ignored");
		return;
	}
	mm->name = xstrdup(json_string_value(json_object_get(o, "name")));
	if (json_is_string(json_object_get(o, "title")))
		mm->title = xstrdup(json_string_value(json_object_get(o, "title")));
	if (json_is_string(json_object_get(o, "file")))
		mm->file = xstrdup(json_string_value(json_object_get(o, "file")));
	mm->prices = xcalloc(json_object_size(pr) + 1, sizeof(*mm->prices));
	json_object_foreach(pr, key, e) {
		struct gx_meta_price *p = &mm->prices[mm->nr_prices];
		json_t *v = json_object_get(e, "value"), *s = json_object_get(e, "source");

		if (!json_is_number(v) && !json_is_string(v))
			continue;
		p->key = xstrdup(key);
		p->value = json_is_number(v) ? json_number_value(v) : NAN;
		p->text = json_is_string(v) ? xstrdup(json_string_value(v)) : NULL;
		p->source = json_is_string(s) ? xstrdup(json_string_value(s)) : NULL;
		mm->nr_prices++;
	}
}

void gx_meta_machine__exit(struct gx_meta_machine *mm)
{
	for (size_t i = 0; i < mm->nr_prices; i++)
		GX_FREE(mm->prices[i].key, mm->prices[i].text, mm->prices[i].source);
	GX_FREE(mm->prices, mm->name, mm->title, mm->file);
	memset(mm, 0, sizeof(*mm));
}

const struct gx_meta_price *gx_meta_machine__price(const struct gx_meta_machine *mm,
						   const char *key)
{
	for (size_t i = 0; i < mm->nr_prices; i++)
		if (!strcmp(mm->prices[i].key, key))
			return &mm->prices[i];
	return NULL;
}

/* "zen3" or "zen3 (/tmp/m.json)": a description by its name and file. */
static char *machine_name(const struct gx_meta_machine *mm)
{
	if (!mm->name)
		return xstrdup("no machine description (recorded before descriptions)");
	if (mm->file)
		return xasprintf("'%s' (%s)", mm->name, mm->file);
	return xasprintf("'%s'", mm->name);
}

/* The first price of a that b prices otherwise (or lacks): allocated, NULL: none. */
static char *first_difference(const struct gx_meta_machine *a, const struct gx_meta_machine *b)
{
	for (size_t i = 0; i < a->nr_prices; i++) {
		const struct gx_meta_price *p = &a->prices[i];
		const struct gx_meta_price *q = gx_meta_machine__price(b, p->key);

		if (!q)
			return xasprintf("%s is in one only", p->key);
		if (p->text || q->text) {
			if (!p->text || !q->text || strcmp(p->text, q->text))
				return xasprintf("%s %s against %s", p->key, p->text ? p->text : "?",
						 q->text ? q->text : "?");
		} else if (p->value != q->value) {
			return xasprintf("%s %g against %g", p->key, p->value, q->value);
		}
	}
	return b->nr_prices != a->nr_prices ? xstrdup("their price lists differ") : NULL;
}

char *gx_meta_machine__differs(const struct gx_meta_machine *a, const char *an,
			       const struct gx_meta_machine *b, const char *bn)
{
	char *d, *na, *nb, *r;

	if (!a->name && !b->name)
		return NULL;
	d = a->name && b->name ? first_difference(a, b) : xstrdup("one has no prices stored");
	if (!d && strcmp(a->name, b->name))
		d = xstrdup("same prices, another name");
	if (!d)
		return NULL;
	na = machine_name(a);
	nb = machine_name(b);
	r = xasprintf("%s was priced with machine description %s, %s with %s (%s): a modelled "
		      "comparison needs one description", an, na, bn, nb, d);
	free(na);
	free(nb);
	free(d);
	return r;
}

char *gx_meta__rules_differ(const struct gx_meta *a, const char *an, const struct gx_meta *b,
			    const char *bn)
{
	if (!a->modelled || !b->modelled || a->model_rules == b->model_rules)
		return NULL;
	return xasprintf("%s was priced by the model's rules of revision %d, %s by revision %d "
			 "(revision 1 prices misses at random by those in flight between two "
			 "mispredicts): their cycles are not comparable; record %s again with "
			 "this gexplore", an, a->model_rules, bn, b->model_rules,
			 a->model_rules < b->model_rules ? an : bn);
}

/* what a predictor is called in a message */
static const char *predictor_words(const char *p)
{
	if (!strcmp(p, GX_PREDICTOR_TAGE))
		return "gxgrind's tagged predictor";
	if (!strcmp(p, GX_PREDICTOR_2BIT))
		return "callgrind's two-bit predictor";
	return "an unknown predictor";
}

/* the line is the caller's to escape (as cmd_error does): it names the
 * predictors as meta.json wrote them */
char *gx_meta__predictor_differs(const struct gx_meta *a, const char *an,
				 const struct gx_meta *b, const char *bn)
{
	const char *pa = a->model_predictor ? a->model_predictor : GX_PREDICTOR_2BIT;
	const char *pb = b->model_predictor ? b->model_predictor : GX_PREDICTOR_2BIT;

	if (!a->modelled || !b->modelled || !strcmp(pa, pb))
		return NULL;
	return xasprintf("%s simulated %s ('%s'), %s %s ('%s'): their mispredicts are counts "
			 "of different predictors, which no description prices alike; model both "
			 "with one (GX_MODEL_PREDICTOR=2bit gives callgrind's)",
			 an, predictor_words(pa), pa, bn, predictor_words(pb), pb);
}
