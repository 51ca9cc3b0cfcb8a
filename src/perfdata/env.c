/*
 * env.c: the facts perf.data's header features hold about the recording
 * machine, gathered from uname, /proc/cpuinfo and sysconf.
 */
#include "config.h"

#include "perfdata/perfdata-int.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* The value of the first "key : value" line of /proc/cpuinfo, or NULL. */
static char *cpuinfo_field(const char *cpuinfo, const char *key)
{
	size_t klen = strlen(key);

	for (const char *p = cpuinfo; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *colon = p + klen, *end;

		if (strncmp(p, key, klen) != 0)
			continue;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		if (*colon != ':')
			continue;
		end = strchr(p, '\n');
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		if (!end)
			end = colon + strlen(colon);
		while (end > colon && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		return xstrndup(colon, (size_t)(end - colon));
	}
	return NULL;
}

/* perf's x86 CPUID string: "GenuineIntel,6,85,4" (vendor,family,model,stepping). */
static char *cpuid_string(const char *cpuinfo)
{
	char *vendor = cpuinfo_field(cpuinfo, "vendor_id");
	char *family = cpuinfo_field(cpuinfo, "cpu family");
	char *model = cpuinfo_field(cpuinfo, "model");
	char *stepping = cpuinfo_field(cpuinfo, "stepping");
	char *s = NULL;

	if (vendor && family && model)
		s = xasprintf("%s,%s,%s,%s", vendor, family, model, stepping ? stepping : "0");
	else if ((s = gx_read_file("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1",
				   64)) != NULL) {
		/* arm64: perf writes MIDR_EL1, "0x00000000410fd080" */
		s[strcspn(s, " \n")] = 0;
	}
	free(vendor);
	free(family);
	free(model);
	free(stepping);
	return s;
}

/* This machine's PMUs: every /sys/bus/event_source/devices/NAME/type,
 * as perf's PMU_MAPPINGS has them (a hybrid CPU's cpu_core and cpu_atom,
 * an Arm core's armv8_pmuv3_0). Unreadable entries are skipped. */
static void read_pmus(struct pd_env *env, const char *root)
{
	char *dir = xasprintf("%s/bus/event_source/devices", root);
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t cap = 0;

	while (d && (de = readdir(d))) {
		char *path, *text, *end;
		unsigned long type;

		if (de->d_name[0] == '.' || strlen(de->d_name) > 64)
			continue;
		path = xasprintf("%s/%s/type", dir, de->d_name);
		text = gx_read_file(path, 64);
		free(path);
		if (!text)
			continue;
		type = strtoul(text, &end, 10);
		if (end != text && type <= UINT32_MAX) {
			if (env->nr_pmus == cap) {
				cap = cap ? 2 * cap : 16;
				env->pmus = xrealloc(env->pmus, cap * sizeof(*env->pmus));
			}
			env->pmus[env->nr_pmus].type = (uint32_t)type;
			env->pmus[env->nr_pmus++].name = xstrdup(de->d_name);
		}
		free(text);
	}
	if (d)
		closedir(d);
	free(dir);
}

int pd_env__from_system(struct pd_env *env, int argc, char *const *argv)
{
	struct utsname u;
	char *cpuinfo;
	long n;

	memset(env, 0, sizeof(*env));
	if (uname(&u) == 0) {
		env->hostname = xstrdup(u.nodename);
		env->osrelease = xstrdup(u.release);
		env->arch = xstrdup(u.machine);
	}
	env->version = xstrdup(PACKAGE_NAME " " PACKAGE_VERSION);
	cpuinfo = gx_read_file("/proc/cpuinfo", 1 << 20);
	if (cpuinfo) {
		env->cpudesc = cpuinfo_field(cpuinfo, "model name");
		if (!env->cpudesc)
			env->cpudesc = cpuinfo_field(cpuinfo, "Hardware");
		env->cpuid = cpuid_string(cpuinfo);
		free(cpuinfo);
	}
	if (!env->cpudesc)
		env->cpudesc = xstrdup("unknown");
	if (!env->cpuid)
		env->cpuid = xstrdup("unknown");
	n = sysconf(_SC_NPROCESSORS_ONLN);
	env->nr_cpus_online = n > 0 ? (uint32_t)n : 1;
	n = sysconf(_SC_NPROCESSORS_CONF);
	env->nr_cpus_avail = n > 0 ? (uint32_t)n : env->nr_cpus_online;
	read_pmus(env, getenv("GX_SYSFS") ? getenv("GX_SYSFS") : "/sys");
	if (argc > 0 && argv) {
		env->cmdline = xcalloc((size_t)argc, sizeof(char *));
		for (int i = 0; i < argc; i++)
			env->cmdline[i] = xstrdup(argv[i] ? argv[i] : "");
		env->nr_cmdline = (uint32_t)argc;
	}
	return 0;
}

void pd_groups__free(void *arr, size_t n)
{
	struct pd_group *g = arr;

	for (size_t i = 0; i < n; i++)
		free(g[i].name);
	free(g);
}

void pd_pmus__free(void *arr, size_t n)
{
	struct pd_pmu *m = arr;

	for (size_t i = 0; i < n; i++)
		free(m[i].name);
	free(m);
}

void pd_env__exit(struct pd_env *env)
{
	free(env->hostname);
	free(env->osrelease);
	free(env->version);
	free(env->arch);
	free(env->cpudesc);
	free(env->cpuid);
	gx_free_strv(env->cmdline, env->nr_cmdline);
	for (size_t i = 0; i < env->nr_build_ids; i++)
		free(env->build_ids[i].filename);
	free(env->build_ids);
	pd_groups__free(env->groups, env->nr_groups);
	pd_pmus__free(env->pmus, env->nr_pmus);
	memset(env, 0, sizeof(*env));
}
