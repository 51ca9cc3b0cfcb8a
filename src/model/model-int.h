/* model-int.h: private to src/model. */
#ifndef GX_MODEL_INT_H
#define GX_MODEL_INT_H

#include <stdbool.h>
#include <stdint.h>

/* Run argv with stdin from /dev/null, stdout to out_path and stderr to
 * err_path (NULL: /dev/null). The exit status (128+N for signal N), or a
 * negative errno when it could not be started. */
int model_spawn(char *const *argv, const char *out_path, const char *err_path);

/* Where temporary files go: $TMPDIR when set and not empty, else /tmp.
 * Static or the environment's; never NULL. */
const char *model_tmpdir(void);

/* The L3 size to simulate: l3 itself, unless it came from CPUID (not
 * sysfs: from_sysfs false) on an AMD CPU and is more than one CCD's L3
 * can be (96 MiB, 3D V-Cache's): one core uses its own CCD's L3 only, so
 * a figure summed over the package (a VM's CPUID said 508 MiB) is
 * simulated as 32 MiB, Zen 3 to 5's CCD, and *note (allocated) says so;
 * else *note is NULL. */
uint64_t model_l3_plausible(const char *vendor, uint64_t l3, bool from_sysfs, char **note);

#endif /* GX_MODEL_INT_H */
