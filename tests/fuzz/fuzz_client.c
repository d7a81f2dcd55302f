// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The client side of the daemon's socket (front/source_daemon.c): what
 * a front end does with whatever a "daemon" sends (a socket path or
 * $EMON_PERF_SOCKET can point anywhere, docs/security.md). The input is
 * the daemon's whole side of a conversation, written into a socket pair
 * whose other end then shuts its writing side: the hello, then answers to two snapshot
 * requests and a track request. With the first byte odd, the rest is cut
 * into messages with a right magic and version (type, length and payload
 * from the input), so the fuzzer reaches past the framing. Promises: an
 * answer, never a crash, a hang or a read out of bounds; a refusal's
 * reason is printable text.
 */
#include <errno.h>
#include <unistd.h>
#include <sys/socket.h>
#include "emon_proto.h"
#include "front/source.h"
#include "tests/fuzz/fuzz.h"

static void check_why(const char *why)
{
	for (const char *p = why; *p; p++)
		FUZZ_ASSERT((unsigned char)*p >= 0x20 && *p != 0x7f);
}

/* data cut into framed messages: [type:1][len:2][len bytes]... */
static size_t frame(const uint8_t *data, size_t size, uint8_t *out, size_t cap)
{
	size_t n = 0;

	while (size >= 3) {
		struct emon_msg_hdr h = {
			.magic = EMON_PROTO_MAGIC, .version = EMON_PROTO_VERSION,
			.type = data[0] % 10, .len = data[1] | data[2] << 8,
		};
		size_t body;

		data += 3;
		size -= 3;
		body = h.len < size ? h.len : size;
		if (n + sizeof(h) + body > cap)
			break;
		memcpy(out + n, &h, sizeof(h));
		memcpy(out + n + sizeof(h), data, body);
		n += sizeof(h) + body;
		data += body;
		size -= body;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t buf[65536];
	struct source *s = NULL;
	struct snapshot snap;
	char why[256] = "";
	size_t len;
	int sv[2], err;

	if (!size || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return 0;
	if (data[0] & 1) {
		len = frame(data + 1, size - 1, buf, sizeof(buf));
	} else {
		len = size - 1 < sizeof(buf) ? size - 1 : sizeof(buf);
		memcpy(buf, data + 1, len);
	}
	/* the socket's buffer holds a fuzz input whole (-max_len 4096) */
	FUZZ_ASSERT(write(sv[1], buf, len) == (ssize_t)len);
	/* the daemon's side ends there; it still takes the requests */
	shutdown(sv[1], SHUT_WR);
	err = source_daemon__attach(&s, sv[0], "fuzz", why, sizeof(why));
	if (err) {
		FUZZ_ASSERT(err < 0);
		check_why(why);
		close(sv[1]);
		return 0;
	}
	for (int i = 0; i < 2; i++) {
		err = s->ops->snapshot(s, &snap);
		if (!err)
			snapshot__free(&snap);
		check_why(s->why);
	}
	err = s->ops->track(s, 1);
	check_why(s->why);
	s->ops->close(s);
	close(sv[1]);
	return 0;
}
