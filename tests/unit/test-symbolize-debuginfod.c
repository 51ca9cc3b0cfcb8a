/*
 * test-symbolize-debuginfod: a binary that is not on disk is fetched by
 * build-id from a debuginfod server — here a local `python3 -m
 * http.server` over a buildid/<hex>/executable tree — only when
 * DEBUGINFOD_URLS is set. libdwfl reads the variable when it starts its
 * client, so each case runs in a fresh child process (this program
 * re-executed with GX_SYM_DFD_CHILD=1).
 */
#include "config.h"

#include "symbolize/symbolize.h"
#include "util/util.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"

#pragma GCC diagnostic ignored "-Wformat-truncation"

static size_t build_id(const char *path, uint8_t *out)
{
	const void *bid;
	ssize_t n = -1;
	Elf *elf = NULL;
	int fd;

	if (gx_libelf__open(NULL))	/* util's table: opened before any elf_* */
		return 0;
	fd = open(path, O_RDONLY);
	if (fd >= 0)
		elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf)
		n = dwelf_elf_gnu_build_id(elf, &bid);
	if (n > 0 && n <= 20)
		memcpy(out, bid, n);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return n > 0 && n <= 20 ? (size_t)n : 0;
}

/* Child: exit 0 when the gone binary resolves `main`, 1 when it does not. */
static int child(const char *wl)
{
	struct sym_session *s;
	struct sym_dso *dso;
	uint8_t bid[20];
	size_t n = build_id(wl, bid);
	int err;

	sym_session__new(&s, NULL, NULL);
	dso = sym_session__dso(s, "/gone/away/wl-sym-inline", bid, n);
	err = sym_dso__open(dso);
	sym_session__delete(s);
	return err == 0 ? 0 : 1;
}

static int run_child(const char *self, const char *urls)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (urls)
			setenv("DEBUGINFOD_URLS", urls, 1);
		else
			unsetenv("DEBUGINFOD_URLS");
		setenv("GX_SYM_DFD_CHILD", "1", 1);
		execl(self, self, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int port_open(int port)
{
	struct sockaddr_in sa = { 0 };
	int fd = socket(AF_INET, SOCK_STREAM, 0), r;

	sa.sin_family = AF_INET;
	sa.sin_port = htons(port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	r = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	close(fd);
	return r == 0;
}

int main(void)
{
	const char *b = getenv("GX_BUILDDIR");
	char wl[4096], dir[4096], cmd[3 * 4096], hexid[41], urls[64], self[4096], port_s[16];
	uint8_t bid[20];
	size_t n, i;
	pid_t server;
	int port, tries;
	ssize_t len;
	void *dfd;

	{	/* libdw is opened by a session (not linked): the first opens it
		 * for this test's own build-id reads too */
		struct sym_session *s0 = NULL;
		char *c0 = NULL;

		if (sym_session__new(&s0, NULL, &c0))
			plan_skip_all(c0 ? c0 : "libdw cannot be opened");
		sym_session__delete(s0);
	}
	snprintf(wl, sizeof(wl), "%s/tests/workloads/wl-sym-inline", b ? b : ".");
	if (getenv("GX_SYM_DFD_CHILD"))
		return child(wl);
	if (access(wl, R_OK))
		plan_skip_all("wl-sym-inline not built");
	if (system("python3 -c 'import http.server' >/dev/null 2>&1"))
		plan_skip_all("python3 (for a local HTTP server) is absent");
	/* libdwfl reaches debuginfod through a library it dlopens at run time. */
	dfd = dlopen("libdebuginfod.so.1", RTLD_LAZY);
	if (!dfd)
		plan_skip_all("libdebuginfod.so.1 is absent (Debian package libdebuginfod1)");
	dlclose(dfd);
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0)
		plan_skip_all("cannot find /proc/self/exe");
	self[len] = 0;
	n = build_id(wl, bid);
	if (!n)
		plan_skip_all("workload has no build-id");
	for (i = 0; i < n; i++)
		sprintf(hexid + 2 * i, "%02x", bid[i]);

	snprintf(dir, sizeof(dir), "%s/tests/tmp/symbolize-dfd.XXXXXX", b ? b : ".");
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/tests/tmp'", b ? b : ".");
	if (system(cmd) || !mkdtemp(dir))
		plan_skip_all("cannot create a temporary directory");
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/srv/buildid/%s' '%s/cache' && cp '%s' '%s/srv/buildid/%s/executable'",
		 dir, hexid, dir, wl, dir, hexid);
	if (system(cmd))
		plan_skip_all("cannot build the server tree");
	snprintf(cmd, sizeof(cmd), "%s/cache", dir);
	setenv("DEBUGINFOD_CACHE_PATH", cmd, 1);
	setenv("DEBUGINFOD_TIMEOUT", "5", 1);

	port = 20000 + getpid() % 20000;
	snprintf(port_s, sizeof(port_s), "%d", port);
	snprintf(cmd, sizeof(cmd), "%s/srv", dir);
	server = fork();
	if (server == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(null, 2);
		execlp("python3", "python3", "-m", "http.server", port_s, "--bind", "127.0.0.1",
		       "--directory", cmd, (char *)NULL);
		_exit(127);
	}
	for (tries = 0; tries < 100 && !port_open(port); tries++)
		usleep(50 * 1000);
	if (tries == 100) {
		kill(server, SIGTERM);
		waitpid(server, NULL, 0);
		plan_skip_all("the local HTTP server did not start");
	}

	plan(2);
	snprintf(urls, sizeof(urls), "http://127.0.0.1:%d", port);
	is_int(run_child(self, NULL), 1, "without DEBUGINFOD_URLS the gone binary stays missing");
	is_int(run_child(self, urls), 0, "with DEBUGINFOD_URLS it is fetched by build-id");

	kill(server, SIGTERM);
	waitpid(server, NULL, 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		diag("could not remove %s", dir);
	return exit_status();
}
