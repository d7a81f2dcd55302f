// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emon-perf serve: one engine for the whole host, counting from its start
 * (system, packages, every cgroup and process, command trees), and its
 * front ends: the local API on a UNIX socket (daemon/socket/server.c; stat,
 * top and libemon attach there) and Prometheus /metrics over HTTP
 * (daemon/exporter/http.c, daemon/exporter/metrics.c). Runs in the
 * foreground, logs to stderr. Set-up needs CAP_BPF + CAP_PERFMON (docs/capabilities.md);
 * after it the daemon keeps only what its runtime needs, and becomes
 * --user's uid when asked. Capabilities are per thread, so set-up binds
 * the HTTP port without starting libmicrohttpd's thread; that thread
 * starts after the drop and inherits what is left, and every task is
 * then read back from /proc (a thread that kept more is fatal).
 *
 * The main thread owns the engine: it ticks it, answers socket clients,
 * and encodes the snapshots /metrics asks for; the HTTP thread only
 * decodes and renders them, and keeps the last one: a scrape within
 * --min-scrape-ms of its flush is answered from it, so that scrapers
 * cannot drive flushes of every CPU at their own rate.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include "common/log.h"
#include "common/version.h"
#include "daemon/serve.h"
#include "front/errors.h"
#include "front/shared_opts.h"
#include "daemon/serve_opts.h"
#include "common/sigwake.h"
#include "daemon/exporter/http.h"
#include "daemon/exporter/metrics.h"
#include "daemon/privs.h"
#include "daemon/seccomp.h"
#include "daemon/threads.h"
#include "daemon/vm_energy.h"
#include "daemon/socket/server.h"
#include "daemon/exporter/webcfg.h"
#include "engine/session/session.h"
#include "front/source.h"

struct serve {
	struct serve_opts o;
	struct engine *e;
	struct server *srv;
	struct selfmon *self;
	struct vm_energy *vm;	/* --vm-energy, NULL: none */
	struct http_server *http;
	struct metrics *metrics;
	const struct snap_meta *meta;
	void *hello;
	double start_unix;
	/* the HTTP thread's */
	double last_scrape_s;
	struct snapshot last;	/* the last scrape's snapshot */
	bool has_last;
};

/* --- /metrics: the HTTP thread asks the main thread for a snapshot ------- */

struct scrape {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done;
	void *buf;
	size_t len;
	int err;
};

static void scrape_done(void *ctx, void *buf, size_t len, int err)
{
	struct scrape *sc = ctx;

	pthread_mutex_lock(&sc->lock);
	sc->buf = buf;
	sc->len = len;
	sc->err = err;
	sc->done = true;
	pthread_cond_signal(&sc->cond);
	pthread_mutex_unlock(&sc->lock);
}

static double unix_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int serve_render(struct serve *sv, const struct snapshot *snap,
			bool openmetrics, char **body, size_t *len, double t0)
{
	struct metrics_self self = {
		.scrape_duration_s = sv->last_scrape_s,
		.start_time_unix = sv->start_unix,
		.version = EMON_VERSION,
		.flushes = snap->seq,
		.scrape_flushes = server__scrape_flushes(sv->srv),
		.clients = server__nr_clients(sv->srv),
		.threads = selfmon__used(sv->self),
		.thread_slots = sv->o.threads,
	};
	int err;

	err = metrics__render(sv->metrics, sv->meta, snap, &self, openmetrics, body, len);
	sv->last_scrape_s = session__now() - t0;
	return err;
}

static int serve_metrics(void *ctx, bool openmetrics, char **body, size_t *len)
{
	struct serve *sv = ctx;
	struct scrape sc = { .lock = PTHREAD_MUTEX_INITIALIZER,
			     .cond = PTHREAD_COND_INITIALIZER };
	unsigned int scopes = EMON_SNAP_CGROUPS | (sv->o.top_procs ? EMON_SNAP_PROCS : 0);
	double t0 = session__now();
	struct snapshot snap;
	int err;

	if (sv->has_last && t0 - sv->last.t < sv->o.min_scrape_ms / 1e3)
		return serve_render(sv, &sv->last, openmetrics, body, len, t0);
	err = server__request_all(sv->srv, scopes, scrape_done, &sc);
	if (err)
		return err;
	/* the main thread always answers, an error at its shutdown too */
	pthread_mutex_lock(&sc.lock);
	while (!sc.done)
		pthread_cond_wait(&sc.cond, &sc.lock);
	pthread_mutex_unlock(&sc.lock);
	if (sc.err)
		return sc.err;
	err = snapshot__decode(&snap, sv->meta, sc.buf, sc.len);
	free(sc.buf);
	if (err)
		return err;
	if (sv->has_last)
		snapshot__free(&sv->last);
	sv->last = snap;
	sv->has_last = true;
	return serve_render(sv, &sv->last, openmetrics, body, len, t0);
}

/* --- set-up, loop, clean-up ------------------------------------------------- */

/* Every client may hold an fd: raise the soft limit to the hard one. */
static void raise_nofile(long want)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	if (rl.rlim_cur < (rlim_t)want + 256) {
		rl.rlim_cur = rl.rlim_max < (rlim_t)want + 256 ? rl.rlim_max : (rlim_t)want + 256;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static int serve_setup(struct serve *sv)
{
	struct server_opts so = {
		.path = sv->o.socket,
		.uid = sv->o.user ? sv->o.u.uid : 0,
		.gid = sv->o.gid,
		.max_clients = sv->o.max_clients,
		.min_flush_s = sv->o.min_flush_ms / 1e3,
		.internal_fresh_s = sv->o.min_scrape_ms / 1e3,
		.request_timeout_s = 5,
		.answer_timeout_s = 30,
		.max_held = (size_t)sv->o.max_held_mb << 20,
		.admin_gid = sv->o.admin_gid,
		.idle_timeout_s = sv->o.idle_timeout_s,
		.max_clients_per_uid = sv->o.max_clients_per_uid,
		.max_trees_per_uid = sv->o.max_trees_per_uid,
	};
	struct metrics_opts mo = {
		.max_series = sv->o.max_series,
		.top_procs = sv->o.top_procs,
	};
	struct snap_meta m;
	size_t hello_len;
	char err[256];
	int ret;

	raise_nofile(sv->o.max_clients);
	ret = engine__open(&sv->e, &sv->o.eng);
	if (ret)
		return cli__exit_status(ret);
	sv->meta = engine__meta(sv->e);
	m = *sv->meta;
	m.pid = getpid();
	ret = snap_meta__encode(&m, &sv->hello, &hello_len);
	if (ret)
		return cli__exit_status(ret);	/* -ENOMEM */
	ret = server__open(&sv->srv, &so, sv->e, sv->hello, hello_len);
	if (ret)
		return cli__exit_status(ret);	/* a live daemon there: 1 */
	if (sv->o.threads) {
		struct selfmon_opts to = {
			.max_threads = sv->o.threads,
			.pin_dir = sv->o.pin_dir,
			.uid = so.uid,
			.max_per_uid = sv->o.max_threads_per_uid,
		};

		/* after the socket: a live daemon there keeps its pin */
		ret = selfmon__open(&sv->self, &to, sv->e);
		if (ret)
			return cli__exit_status(ret);
		server__set_self(sv->srv, sv->self);
	}
	if (sv->o.nr_vm_energy) {
		/* made as root, written as --user after the drop */
		ret = vm_energy__open(&sv->vm, sv->o.vm_energy, sv->o.nr_vm_energy,
				      sv->o.vm_energy_ms / 1e3, so.uid,
				      sv->o.user ? sv->o.u.gid : 0, sv->meta);
		if (ret)
			return cli__exit_status(ret);
	}
	ret = metrics__new(&sv->metrics, &mo);
	if (ret)	/* -ENOMEM: --processes top:N is 1 or more */
		return cli__exit_status(ret);
	sv->start_unix = unix_now() - (session__now() - sv->meta->start_t);
	if (!strcmp(sv->o.listen, "none"))
		return 0;
	/* bound now, served after the drop (serve_drop); a bad certificate
	 * or key file is bad input (2), a busy port 1 */
	ret = http__open_web(&sv->http, sv->o.listen,
			     sv->o.web_config ? &sv->o.web : NULL,
			     serve_metrics, sv, err, sizeof(err));
	if (ret)
		return cli__fail(ret, "cannot serve HTTP on %s: %s", sv->o.listen, err);
	/* clients not authenticated (so on loopback; TLS alone included):
	 * root and a group only, not every local user */
	if (!webcfg__authenticates(sv->o.web_config ? &sv->o.web : NULL))
		http__by_uid(sv->http, sv->o.metrics_gid == (gid_t)-2 ? sv->o.admin_gid :
				       sv->o.metrics_gid);
	return 0;
}

/*
 * After set-up: only what the runtime needs (docs/capabilities.md), as
 * --user if asked, and only the calls it makes (seccomp.h), then the
 * HTTP thread, then every task checked. Any
 * failure ends the daemon: one running with more than it says is worse
 * than none. Exit status 1 whatever the errno (-EIO): the command line
 * was good (an -EPERM here, which would be 2, is the host's).
 */
static int serve_drop(struct serve *sv)
{
	__u64 bnd, eff = 0;
	char buf[512];
	int err;

	err = privs__drop(sv->o.keep, sv->o.user ? &sv->o.u : NULL);
	if (err)
		return cli__fail(-EIO, "cannot drop privileges%s%s: %s",
				 sv->o.user ? " to user " : "", sv->o.user ?: "",
				 strerror(-err));
	bnd = privs__bounding();
	if (!sv->o.no_seccomp && (err = seccomp__install(buf, sizeof(buf))))
		return cli__fail(-EIO, "cannot install the seccomp allowlist "
				 "(--no-seccomp to run without): %s", buf);
	if (sv->http && http__run(sv->http, buf, sizeof(buf)))
		return cli__fail(-EIO, "cannot serve HTTP on %s: %s", sv->o.listen, buf);
	err = privs__check_tasks(sv->o.keep, bnd, buf, sizeof(buf));
	if (err)
		return cli__fail(-EIO, "after the privilege drop, %s", buf);
	privs__effective(&eff);
	privs__format(eff, buf, sizeof(buf));
	pr_debug("capabilities after set-up, every thread: %s; uid %d", buf, (int)getuid());
	return 0;
}

/* 0 after a signal, else the exit status 1 */
static int serve_loop(struct serve *sv)
{
	struct pollfd *pfd = calloc(sv->o.max_clients + 5, sizeof(*pfd));
	int n, err = 0;

	if (!pfd)
		return cli__exit_status(-ENOMEM);
	while (!sigwake.last) {
		double now = session__now(), next = server__next(sv->srv, now), ms;

		if (vm_energy__next(sv->vm) < next)
			next = vm_energy__next(sv->vm);

		pfd[0] = (struct pollfd){ .fd = sigwake.fd, .events = POLLIN };
		/* registered threads that exited (-1: ignored) */
		pfd[1] = (struct pollfd){ .fd = selfmon__fd(sv->self), .events = POLLIN };
		n = server__pollfds(sv->srv, pfd + 2, sv->o.max_clients + 3);
		ms = next > now ? (next - now) * 1e3 + 1 : 0;
		/* 1 whatever the errno (EINVAL: more fds than RLIMIT_NOFILE) */
		if (poll(pfd, n + 2, ms > 1000 ? 1000 : (int)ms) < 0 && errno != EINTR) {
			err = cli__exit_status(-EIO);
			break;
		}
		if (sigwake.last)
			break;
		now = session__now();
		if (pfd[1].revents)
			selfmon__reap(sv->self);
		server__handle(sv->srv, pfd + 2, n, now);
		vm_energy__run(sv->vm, sv->srv, session__now());
		server__run(sv->srv, session__now());
	}
	free(pfd);
	return err;
}

static void serve_cleanup(struct serve *sv)
{
	/* waiting scrapes get their error first, so the HTTP thread ends */
	if (sv->srv)
		server__shutdown(sv->srv);
	http__stop(sv->http);
	if (sv->has_last)
		snapshot__free(&sv->last);
	webcfg__free(&sv->o.web);
	server__close(sv->srv);
	/* after the last answer, before the programs go: slots marked gone */
	selfmon__close(sv->self);
	vm_energy__close(sv->vm);
	engine__close(sv->e);
	metrics__free(sv->metrics);
	free(sv->hello);
}

/* "serving 2 of 4 events on 2 CPUs, pid N: socket S, metrics M; not
 * counted here: cycles, instructions (...)": every event it was asked
 * for and cannot count named, without -v. */
static void serve_started(const struct serve *sv)
{
	const struct snap_meta *m = sv->meta;
	int asked = m->nr_events + m->nr_unsup;

	fprintf(stderr, "emon-perf: serving ");
	if (m->nr_unsup)
		fprintf(stderr, "%d of ", m->nr_events);
	fprintf(stderr, "%d event%s on %d CPUs, pid %d: socket %s, metrics %s%s%s",
		asked, asked == 1 ? "" : "s", m->ncpus, (int)getpid(), sv->o.socket,
		!sv->http ? "off" : sv->o.web.cert_file ? "https://" : "http://",
		sv->http ? sv->o.listen : "", sv->http ? "/metrics" : "");
	for (int i = 0; i < m->nr_unsup; i++)
		fprintf(stderr, "%s%.*s", i ? ", " : "; not counted here: ",
			SNAP_EVENT_NAME_LEN, m->unsup_name[i]);
	fprintf(stderr, "%s\n", m->nr_unsup ? " (not supported by this machine: no PMU for them, a VM?)" : "");
}

int cmd_serve(int argc, char **argv)
{
	struct serve *sv = calloc(1, sizeof(*sv));
	int ret;

	if (!sv)
		return cli__exit_status(-ENOMEM);
	ret = serve_opts__parse(&sv->o, argc, argv);
	if (ret) {
		free(sv);
		return cli__parse_status(ret);
	}
	ret = sigwake__setup((int[]){ SIGINT, SIGTERM }, 2, false);
	if (ret) {
		free(sv);
		return cli__exit_status(ret);
	}
	signal(SIGHUP, SIG_IGN);	/* a daemon outlives its terminal */
	ret = serve_setup(sv);
	if (!ret)
		ret = serve_drop(sv);
	if (!ret) {
		serve_started(sv);
		ret = serve_loop(sv);
		if (!ret)
			fprintf(stderr, "emon-perf: %s: exiting\n", strsignal(sigwake.last));
	}
	serve_cleanup(sv);
	free(sv);
	return ret;
}
