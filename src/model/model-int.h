/* model-int.h: private to src/model. */
#ifndef GX_MODEL_INT_H
#define GX_MODEL_INT_H

/* Run argv with stdin from /dev/null, stdout to out_path and stderr to
 * err_path (NULL: /dev/null). The exit status (128+N for signal N), or a
 * negative errno when it could not be started. */
int model_spawn(char *const *argv, const char *out_path, const char *err_path);

#endif /* GX_MODEL_INT_H */
