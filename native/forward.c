/*
 * The tap's native forwarder: one thread per direction moves bytes from one descriptor to the
 * other and appends a copy of each chunk to the recording's capture log (capture-log.ts: same
 * records) just before handing it on. The client's input goes with plain read() and write() calls,
 * as `cat` does, plus one write into the log. The agent's output (nearly all the bytes) goes without
 * a copy on its way to the client: tee() duplicates its pages into a pipe of ours, which is read
 * and appended to the log (the recording's copy), and splice() moves the agent's pages on to the
 * client (see forward_spliced; ACP_INSPECT_ZERO_COPY=0 turns it off). JavaScript never sees the
 * bytes.
 *
 * Everything that goes into the log passes through one mutex: the two forwarding threads' chunks and
 * the main thread's records (stderr, events, the finish), so records keep the order they were pushed
 * in. Once a record is whole in the file, the committed position (an Int64 in memory shared with the
 * recorder) moves past it: the recorder reads up to there. A write that fails (a full disk) loses
 * that chunk, counted; a `gap` record says how much once the log takes records again. Forwarding
 * never waits for the recorder: the log is a file, not a ring that fills up.
 *
 * Threads never call into JavaScript: they write one byte on the event pipe when the main thread
 * has something to do (see EV_*). Nothing here needs tearing down at exit: a thread blocked in read()
 * or write() ends with the process.
 *
 * It also starts the agent (spawn(): posix_spawnp, and a thread that waits for its exit), which
 * costs the tap's start-up less than Node's spawn does.
 *
 * Little-endian machines only (a record's header is written in the machine's byte order); the loader
 * in native.ts refuses the module elsewhere and the tap uses its JavaScript forwarder.
 */
#define _GNU_SOURCE
#include <node_api.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define HEADER 16
#define RECORD_CONTROL 3
#define PAD8(n) (((n) + 7u) & ~7u)

/* Stream codes (messages.ts). */
#define C2A 0
#define A2C 1

/* Bytes per read: what a pipe holds by default. */
#define READ_BYTES (64 * 1024)
/*
 * What the agent's stdout pipe and our tee() pipe hold, where the kernel allows (1 MiB is the most
 * an unprivileged process may ask for), and so the most the agent's output moves in one go, when
 * the client reads a pipe (most editors), a file or a terminal. Each splice() that empties a pipe
 * wakes the agent blocked writing into it, and such a wake-up costs more than the move itself on a
 * virtual machine: with 64 KiB pipes the forwarding thread spent half its time there during a
 * flood, and a flood to a client reading a pipe ran at 0.58-0.74 of a `cat` relay's speed; with
 * 1 MiB, at 1.00-1.20 (256 KiB: 0.81). A client on a socket (Node's child_process gives a socket
 * pair) went the other way: 1.02-1.08 of the relay with 64 KiB, 0.88-0.89 with 1 MiB. So sockets
 * keep the default size (see pipe_bytes).
 */
#define PIPE_BYTES (1024 * 1024)

/* The size for the agent's stdout pipe and the tee() pipe, given the client's end (fd 1): see PIPE_BYTES. */
static int pipe_bytes(void) {
  struct stat st;
  if (fstat(1, &st) == 0 && S_ISSOCK(st.st_mode)) return 0; /* the default */
  return PIPE_BYTES;
}

/* Event bytes for the main thread. */
#define EV_A2C_END 'E'  /* the agent's stdout ended and all of it was handed on */
#define EV_EXIT 'X'     /* the agent spawned by spawn() exited: see exitStatus() */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int64_t *committed;    /* shared with the recorder: bytes of whole records in the log */
static napi_ref shared_ref;   /* keeps that memory alive */
static double base_ms;        /* t = monotonic ms - base_ms */
static int events_w = -1;
static int log_fd = -1;
static int64_t log_pos = 0;   /* where the next record goes */
/* Chunk bytes per stream the log could not take (a full disk): a gap record says so once it can. */
static uint64_t dropped[3];
static int initialized = 0, started = 0;
/* Cleared when the recording stops (the tap exits): records are then not kept (forwarding goes on). */
static volatile int recording = 1;
/* The agent's output goes on by tee() and splice() (forward_spliced), unless ACP_INSPECT_ZERO_COPY=0. */
static int zero_copy = 1;

/* Forwarding state read by the main thread (state()). */
static volatile int a2c_writing = 0, a2c_ended = 0, client_broken = 0;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void signal_fd(int fd, char c) {
  if (fd < 0) return;
  ssize_t r;
  do r = write(fd, &c, 1); while (r < 0 && errno == EINTR);
  /* EAGAIN: the pipe is full of earlier signals, which say the same. */
}

/* ---- the capture log (caller holds mu) ------------------------------------------------------ */

/* A record's header (capture-log.ts encodeHeader): payload length u32, type u32, t f64. */
static void make_header(uint8_t head[HEADER], int type, double t, uint32_t len) {
  uint32_t ty = (uint32_t)type;
  memcpy(head, &len, 4);
  memcpy(head + 4, &ty, 4);
  memcpy(head + 8, &t, 8);
}

static int write_all_at(int fd, struct iovec *iov, int n, int64_t pos) {
  while (n > 0) {
    ssize_t w = pwritev(fd, iov, n, pos);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return 0;
    pos += w;
    while (n > 0 && (size_t)w >= iov->iov_len) { w -= (ssize_t)iov->iov_len; iov++; n--; }
    if (n > 0) { iov->iov_base = (uint8_t *)iov->iov_base + w; iov->iov_len -= (size_t)w; }
  }
  return 1;
}

/* The record of `len` bytes is whole at log_pos: move past it, and let the recorder see it. */
static void log_commit(uint32_t len) {
  log_pos += HEADER + PAD8(len);
  __atomic_store_n(committed, log_pos, __ATOMIC_RELEASE);
}

static int log_write(int type, double t, const void *payload, uint32_t len) {
  static const uint8_t zeros[8];
  uint8_t head[HEADER];
  make_header(head, type, t, len);
  struct iovec iov[3] = { { head, HEADER }, { (void *)payload, len }, { (void *)zeros, PAD8(len) - len } };
  if (!write_all_at(log_fd, iov, 3, log_pos)) return 0;
  log_commit(len);
  return 1;
}

/* Writes the gap records of what the log could not take; 1 when none is left to write. */
static int log_gaps(double t) {
  char msg[160];
  for (int c = 0; c < 3; c++) {
    if (dropped[c] == 0) continue;
    int n = snprintf(msg, sizeof msg, "{\"gap\":%d,\"t\":%.6f,\"bytes\":%llu}", c, t, (unsigned long long)dropped[c]);
    if (!log_write(RECORD_CONTROL, t, msg, (uint32_t)n)) return 0;
    dropped[c] = 0;
  }
  return 1;
}

/*
 * Appends one record to the log, in order, never waiting for the recorder. A chunk the log cannot
 * take is counted (a gap record follows); a control record it cannot take is lost with the disk's
 * room (the gap that follows marks the recording incomplete). Caller holds mu and checked `recording`.
 */
static void push_locked(int type, double t, const void *payload, uint32_t len) {
  if ((dropped[0] | dropped[1] | dropped[2]) != 0 && !log_gaps(t)) {
    if (type != RECORD_CONTROL) dropped[type] += len;
    return;
  }
  if (!log_write(type, t, payload, len) && type != RECORD_CONTROL) dropped[type] += len;
}

static void push(int type, double t, const void *payload, uint32_t len) {
  if (!recording) return;
  pthread_mutex_lock(&mu);
  /* Stopped while we waited: the shared memory may be on its way out. */
  if (recording) push_locked(type, t, payload, len);
  pthread_mutex_unlock(&mu);
}

static int read_exactly(int fd, struct iovec *iov, int cnt, size_t n) {
  while (n > 0) {
    ssize_t r = readv(fd, iov, cnt);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return 0;
    n -= (size_t)r;
    while (cnt > 0 && (size_t)r >= iov->iov_len) { r -= (ssize_t)iov->iov_len; iov++; cnt--; }
    if (cnt > 0) { iov->iov_base = (uint8_t *)iov->iov_base + r; iov->iov_len -= (size_t)r; }
  }
  return 1;
}

/*
 * The record of a chunk of the agent's output that waits in our tee() pipe `fd` (n bytes, all
 * there): read into `buf` and appended to the log. (splice() from the pipe into the log would save
 * the copy through user space, but into a disk file system it measured about twice as slow as
 * read() and pwritev(): 100,000 1 KiB frames through the tap in 2.0-2.6 s against 0.8-1.0 s.) The
 * pipe is drained either way. 0 when the pipe could not be read.
 */
static int log_from_pipe(double t, int fd, uint32_t n, uint8_t *buf) {
  struct iovec one = { buf, n };
  if (!read_exactly(fd, &one, 1, n)) return 0;
  push(A2C, t, buf, n);
  return 1;
}

static void push_control(double t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void push_control(double t, const char *fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (n > 0 && n < (int)sizeof msg) push(RECORD_CONTROL, t, msg, (uint32_t)n);
}

/* The errno's symbolic name, as Node's error codes spell it ("EPIPE"); "E" and the number where the C library has no name for it. */
static const char *errno_code(int e) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
  const char *name = strerrorname_np(e);
  if (name) return name;
#else
  switch (e) {
    case EPIPE: return "EPIPE";
    case ECONNRESET: return "ECONNRESET";
    case EBADF: return "EBADF";
    case EIO: return "EIO";
    case ENOSPC: return "ENOSPC";
    case EDQUOT: return "EDQUOT";
    case EFBIG: return "EFBIG";
    case EINVAL: return "EINVAL";
    case EAGAIN: return "EAGAIN";
    case EPERM: return "EPERM";
    case EACCES: return "EACCES";
    case EROFS: return "EROFS";
    case ENXIO: return "ENXIO";
    case ENOMEM: return "ENOMEM";
    case ENOBUFS: return "ENOBUFS";
    default: break;
  }
#endif
  static __thread char unknown[24];
  snprintf(unknown, sizeof unknown, "E%d", e);
  return unknown;
}

/* ---- forwarding threads ---------------------------------------------------------------------- */

struct direction {
  int in, out, code;
  int devnull;  /* a2c: replaces fd 1 at the end, so the client sees the end of the output */
};

static void wait_fd(int fd, short ev) {
  struct pollfd p = { fd, ev, 0 };
  while (poll(&p, 1, -1) < 0 && errno == EINTR) {}
}

/* Writes all of buf; 0 and errno when the destination failed. */
static int write_all(int fd, const uint8_t *buf, size_t n, int a2c) {
  size_t off = 0;
  if (a2c) a2c_writing = 1;
  while (off < n) {
    ssize_t w = write(fd, buf + off, n - off);
    if (w > 0) { off += (size_t)w; continue; }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) { wait_fd(fd, POLLOUT); continue; }
    if (a2c) a2c_writing = 0;
    if (w == 0) errno = EIO;
    return 0;
  }
  if (a2c) a2c_writing = 0;
  return 1;
}

/* Moves n bytes from the pipe `in` to `out` without copying them (splice); the count it moved. */
static size_t splice_all(int in, int out, size_t n) {
  size_t moved = 0;
  a2c_writing = 1;
  while (moved < n) {
    ssize_t w = splice(in, NULL, out, NULL, n - moved, SPLICE_F_MOVE);
    if (w > 0) { moved += (size_t)w; continue; }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) { wait_fd(out, POLLOUT); continue; }
    if (w == 0) errno = EIO;
    break;
  }
  a2c_writing = 0;
  return moved;
}

static void client_failed(double t, int err) {
  client_broken = 1;
  push_control(t, "{\"ev\":\"client-stdout-error\",\"t\":%.6f,\"data\":{\"code\":\"%s\"}}", t, errno_code(err));
}

/*
 * The agent's output without a copy on its way to the client: tee() duplicates each chunk into a
 * pipe of our own, which is read and appended to the capture log (log_from_pipe), then splice()
 * hands the agent's pages on to the client. Recorded before written on, as on the copy path. Returns 1 at the
 * end of the agent's output, 0 to go on with the copy loop (tee() or splice() not possible here,
 * e.g. the client's end is a file opened for appending).
 */
static int forward_spliced(struct direction *d, uint8_t *buf, int *broken) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) return 0;
  fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
  /* Chunks as large as both pipes hold (and a buffer as large, for what goes by copy). */
  int want = pipe_bytes();
  int in_size = fcntl(d->in, F_GETPIPE_SZ), p_size = want > 0 ? fcntl(p[1], F_SETPIPE_SZ, want) : fcntl(p[1], F_GETPIPE_SZ);
  size_t chunk = READ_BYTES;
  if (in_size > READ_BYTES && p_size > READ_BYTES) chunk = (size_t)(in_size < p_size ? in_size : p_size);
  uint8_t *big = chunk > READ_BYTES ? malloc(chunk) : NULL;
  if (big) buf = big; else chunk = READ_BYTES;
  int ended = 0;
  for (;;) {
    ssize_t n = tee(d->in, p[1], chunk, SPLICE_F_NONBLOCK);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) { wait_fd(d->in, POLLIN); continue; }
    if (n < 0) break;  /* tee() not possible: the copy loop reads the same bytes */
    if (n == 0) { ended = 1; break; }
    double t = now_ms() - base_ms;
    if (!log_from_pipe(t, p[0], (uint32_t)n, buf)) break;
    size_t moved = *broken ? 0 : splice_all(d->in, d->out, (size_t)n);
    if (moved < (size_t)n) {
      int err = errno;
      /* What splice() did not move is read off the pipe here: written on, or dropped if the client is gone. */
      struct iovec rest = { buf, (size_t)n - moved };
      if (!read_exactly(d->in, &rest, 1, (size_t)n - moved)) break;
      if (!*broken && moved == 0 && err == EINVAL) {
        /* The client's end does not take splice(): this chunk and the rest by copy. */
        if (!write_all(d->out, buf, (size_t)n, 1)) { *broken = 1; client_failed(t, errno); }
        break;
      }
      if (!*broken) { *broken = 1; client_failed(t, err); }
    }
  }
  close(p[0]);
  close(p[1]);
  free(big);
  return ended;
}

static void *forward_thread(void *arg) {
  struct direction *d = arg;
  uint8_t *buf = malloc(READ_BYTES);
  int broken = 0;
  const int a2c = d->code == A2C;
  pthread_setname_np(pthread_self(), a2c ? "acp-fwd-a2c" : "acp-fwd-c2a");
  if (!buf) return NULL;
  int ended = a2c && zero_copy && forward_spliced(d, buf, &broken);
  while (!ended) {
    ssize_t n = read(d->in, buf, READ_BYTES);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) { wait_fd(d->in, POLLIN); continue; }
      n = 0; /* a read error ends the stream, as on the JavaScript path */
    }
    if (n == 0) break;
    double t = now_ms() - base_ms;
    /*
     * Recorded before it is written on: the peer may answer as soon as it has the bytes, and its
     * answer (read by the other thread) must not be recorded before what it answers. The copy is
     * a memcpy into memory already mapped, well under a microsecond for a frame.
     */
    push(d->code, t, buf, (uint32_t)n);
    if (!broken && !write_all(d->out, buf, (size_t)n, a2c)) {
      broken = 1;
      if (a2c) client_failed(t, errno);
      else {
        push_control(t, "{\"ev\":\"agent-stdin-error\",\"t\":%.6f,\"data\":{\"code\":\"%s\"}}", t, errno_code(errno));
      }
    }
  }
  double t = now_ms() - base_ms;
  push_control(t, "{\"eof\":%d,\"t\":%.6f}", d->code, t);
  push_control(t, "{\"ev\":\"%s\",\"t\":%.6f,\"data\":{}}", a2c ? "stdout-closed" : "stdin-closed", t);
  if (a2c) {
    /* The client sees the end of the agent's output now, as through a direct pipe. */
    if (!broken && d->devnull >= 0) dup2(d->devnull, d->out);
    a2c_ended = 1;
    signal_fd(events_w, EV_A2C_END);
  } else {
    close(d->out); /* the agent sees the end of its input */
  }
  free(buf);
  return NULL;
}

/* ---- JavaScript API -------------------------------------------------------------------------- */

#define CHECK(call) do { if ((call) != napi_ok) { napi_throw_error(env, NULL, "acp-inspect native: " #call " failed"); return NULL; } } while (0)

static napi_value num(napi_env env, double x) {
  napi_value v;
  napi_create_double(env, x, &v);
  return v;
}

static int get_int(napi_env env, napi_value v, int32_t *out) {
  return napi_get_value_int32(env, v, out) == napi_ok;
}

static int make_pipe(int fds[2], int nonblock_read) {
  if (pipe2(fds, O_CLOEXEC) != 0) return 0;
  if (nonblock_read) fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK);
  return 1;
}

/* nowMs(): the monotonic clock, in ms (to line our timestamps up with performance.now()). */
static napi_value js_now_ms(napi_env env, napi_callback_info info) {
  (void)info;
  return num(env, now_ms());
}

/* pipes(): [agentStdinRead, agentStdinWrite, agentStdoutRead, agentStdoutWrite], blocking, close-on-exec. */
static napi_value js_pipes(napi_env env, napi_callback_info info) {
  (void)info;
  int a[2], b[2];
  if (pipe2(a, O_CLOEXEC) != 0) { napi_throw_error(env, NULL, strerror(errno)); return NULL; }
  if (pipe2(b, O_CLOEXEC) != 0) { close(a[0]); close(a[1]); napi_throw_error(env, NULL, strerror(errno)); return NULL; }
  napi_value arr;
  CHECK(napi_create_array_with_length(env, 4, &arr));
  int want = pipe_bytes();
  if (want > 0) fcntl(b[1], F_SETPIPE_SZ, want); /* see PIPE_BYTES; where refused, the default */
  int fds[4] = { a[0], a[1], b[0], b[1] };
  for (uint32_t i = 0; i < 4; i++) CHECK(napi_set_element(env, arr, i, num(env, fds[i])));
  return arr;
}

/* closeFd(fd) */
static napi_value js_close_fd(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int32_t fd;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc >= 1 && get_int(env, argv[0], &fd) && fd > 2) close(fd);
  return NULL;
}

/*
 * init(shared: Uint8Array over a SharedArrayBuffer of at least 8 bytes, baseMs, logFd, logPos):
 * takes the capture log (its next record goes at logPos) and the Int64 at the start of `shared`,
 * where the committed position is published; returns the read end of the event pipe (non-blocking).
 */
static napi_value js_init(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (initialized) { napi_throw_error(env, NULL, "acp-inspect native: already initialized"); return NULL; }
  if (argc < 4) { napi_throw_type_error(env, NULL, "init(shared, baseMs, logFd, logPos)"); return NULL; }
  napi_typedarray_type type;
  size_t length;
  void *ptr;
  CHECK(napi_get_typedarray_info(env, argv[0], &type, &length, &ptr, NULL, NULL));
  if (type != napi_uint8_array || length < 8 || ((uintptr_t)ptr & 7) != 0) {
    napi_throw_type_error(env, NULL, "acp-inspect native: the shared memory must be an aligned Uint8Array of 8 bytes or more");
    return NULL;
  }
  double base, pos;
  int32_t fd;
  CHECK(napi_get_value_double(env, argv[1], &base));
  if (!get_int(env, argv[2], &fd)) { napi_throw_type_error(env, NULL, "acp-inspect native: logFd must be a descriptor (-1: none)"); return NULL; }
  CHECK(napi_get_value_double(env, argv[3], &pos));
  int ev[2];
  if (!make_pipe(ev, 1)) { napi_throw_error(env, NULL, strerror(errno)); return NULL; }
  CHECK(napi_create_reference(env, argv[0], 1, &shared_ref));
  committed = (int64_t *)ptr;
  base_ms = base;
  log_fd = fd;
  log_pos = (int64_t)pos;
  if (fd < 0) recording = 0; /* no capture log could be made: forward only */
  __atomic_store_n(committed, log_pos, __ATOMIC_RELEASE);
  events_w = ev[1];
  initialized = 1;
  return num(env, ev[0]);
}

/*
 * The client's end of the agent's output (our stdout) in non-blocking mode, where it is a pipe or a
 * socket. A client that stops reading then makes splice() and write() return EAGAIN, and the a2c
 * thread waits for it in poll(), holding nothing. Blocking, the thread would sleep inside splice(),
 * and a splice() out of a pipe can hold that pipe's lock while the destination keeps it waiting
 * (the kernel's splice_from_pipe() did, for sockets, before Linux 6.5): an agent writing into its
 * stdout would then block on the lock even with a non-blocking write, its whole event loop (stdin,
 * stderr) frozen until the client reads. Not on a terminal (the flag would belong to the open file
 * the shell shares with us) or a regular file (always ready). Node sets the same flag on a pipe or
 * socket stdout it opens; the tap no longer opens one when it forwards natively.
 */
static void client_nonblocking(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) return;
  int fl = fcntl(fd, F_GETFL);
  if (fl >= 0 && !(fl & O_NONBLOCK)) fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* start(clientIn, agentIn, agentOut, clientOut): the two forwarding threads. */
static napi_value js_start(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  int32_t fds[4];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (!initialized || started) { napi_throw_error(env, NULL, "acp-inspect native: start() needs init() and runs once"); return NULL; }
  if (argc < 4) { napi_throw_type_error(env, NULL, "start(clientIn, agentIn, agentOut, clientOut)"); return NULL; }
  for (int i = 0; i < 4; i++) if (!get_int(env, argv[i], &fds[i])) { napi_throw_type_error(env, NULL, "descriptors must be integers"); return NULL; }
  static struct direction c2a, a2c;
  const char *zc = getenv("ACP_INSPECT_ZERO_COPY");
  zero_copy = !(zc && strcmp(zc, "0") == 0);
  client_nonblocking(fds[3]);
  c2a = (struct direction){ fds[0], fds[1], C2A, -1 };
  a2c = (struct direction){ fds[2], fds[3], A2C, open("/dev/null", O_WRONLY | O_CLOEXEC) };
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attr, 256 * 1024);
  pthread_t t1, t2;
  if (pthread_create(&t1, &attr, forward_thread, &c2a) != 0 || pthread_create(&t2, &attr, forward_thread, &a2c) != 0) {
    pthread_attr_destroy(&attr);
    napi_throw_error(env, NULL, "acp-inspect native: cannot start the forwarding threads");
    return NULL;
  }
  pthread_attr_destroy(&attr);
  started = 1;
  return NULL;
}

/* push(type, t, bytes): a record from JavaScript (control messages, stderr chunks). */
static napi_value js_push(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  int32_t type;
  double t;
  void *ptr;
  size_t len;
  napi_typedarray_type ty;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (!initialized || argc < 3 || !get_int(env, argv[0], &type) || type < 0 || type > RECORD_CONTROL) { napi_throw_type_error(env, NULL, "push(type, t, bytes)"); return NULL; }
  CHECK(napi_get_value_double(env, argv[1], &t));
  CHECK(napi_get_typedarray_info(env, argv[2], &ty, &len, &ptr, NULL, NULL));
  push(type, t, ptr, (uint32_t)len);
  return NULL;
}

/*
 * stopRecording(): the process is about to exit (the shared memory goes with the JavaScript heap);
 * records are no longer kept (forwarding goes on). Once it returns, no thread is inside push() and
 * none will touch the log or the shared memory again.
 */
static napi_value js_stop_recording(napi_env env, napi_callback_info info) {
  (void)info;
  pthread_mutex_lock(&mu);
  recording = 0;
  pthread_mutex_unlock(&mu);
  return NULL;
}

/* state(): bits 1 agent output ended, 4 writing to the client, 8 client broken. */
static napi_value js_state(napi_env env, napi_callback_info info) {
  (void)info;
  return num(env, (a2c_ended ? 1 : 0) | (a2c_writing ? 4 : 0) | (client_broken ? 8 : 0));
}

/* errnoCode(errno): the name recorded for a failed write (errno_code), e.g. "EPIPE". */
static napi_value js_errno_code(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], out;
  int32_t e = 0;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc >= 1) get_int(env, argv[0], &e);
  CHECK(napi_create_string_utf8(env, errno_code(e), NAPI_AUTO_LENGTH, &out));
  return out;
}

/*
 * punchHole(fd, offset, length): frees the disk blocks of that range of a file, its size kept
 * (fallocate(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)): reads of it then give zeros. The recorder
 * frees the part of a capture log that is indexed (see store-writer.ts). Returns 0, or the errno
 * (EOPNOTSUPP where the filesystem cannot, as some cannot).
 */
static napi_value js_punch_hole(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  int32_t fd;
  int64_t off, len;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 3 || !get_int(env, argv[0], &fd) || napi_get_value_int64(env, argv[1], &off) != napi_ok
      || napi_get_value_int64(env, argv[2], &len) != napi_ok || off < 0 || len <= 0) {
    napi_throw_type_error(env, NULL, "punchHole(fd, offset, length)");
    return NULL;
  }
  int r;
  do r = fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len); while (r != 0 && errno == EINTR);
  return num(env, r == 0 ? 0 : errno);
}

/* ---- the agent's process ---------------------------------------------------------------------- */

/* The agent's pid and, once waitpid() has it, its wait status (for exitStatus()). */
static pid_t agent_pid = -1;
static volatile int agent_exited = 0;
static int agent_status = 0;

static void *wait_thread(void *arg) {
  (void)arg;
  int st;
  pid_t r;
  do r = waitpid(agent_pid, &st, 0); while (r < 0 && errno == EINTR);
  agent_status = r == agent_pid ? st : 0;
  __atomic_store_n(&agent_exited, 1, __ATOMIC_RELEASE);
  signal_fd(events_w, EV_EXIT);
  return NULL;
}

static char *get_string(napi_env env, napi_value v) {
  size_t len;
  if (napi_get_value_string_utf8(env, v, NULL, 0, &len) != napi_ok) return NULL;
  char *s = malloc(len + 1);
  if (s && napi_get_value_string_utf8(env, v, s, len + 1, &len) != napi_ok) { free(s); return NULL; }
  return s;
}

/*
 * glibc keeps signals 32 and 33 (SIGCANCEL, SIGSETXID) for itself: sigfillset() leaves them out, and
 * posix_spawn() sets a signal that is in no set and has a handler in the parent to SIG_IGN in the
 * child when it is one of these. So the agent would start with them ignored (SigIgn 0x180000000),
 * which a direct spawn (Node's, which resets 1-31, or a shell's) never does. Put them in the
 * "default" set by their bits: posix_spawn() then gives them SIG_DFL like every other signal.
 */
static void add_internal_signals(sigset_t *set) {
#ifdef __GLIBC__
  unsigned long *w = (unsigned long *)(void *)set;
  const int bits = 8 * (int)sizeof(unsigned long);
  for (int sig = 32; sig < SIGRTMIN; sig++) w[(sig - 1) / bits] |= 1UL << ((sig - 1) % bits);
#else
  (void)set;
#endif
}

/*
 * raiseDefault(signo): ends this process by the signal `signo`, as the agent ended: its default
 * disposition back, unblocked on this thread, then raise() (delivered to this thread before it
 * returns). Returns only when the signal does not end a process (its default is to ignore it).
 */
static napi_value js_raise_default(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int32_t sig = 0;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 1 || !get_int(env, argv[0], &sig) || sig <= 0 || sig >= NSIG) return NULL;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = SIG_DFL;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, NULL);
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, sig);
  pthread_sigmask(SIG_UNBLOCK, &one, NULL);
  raise(sig);
  return NULL;
}

/*
 * spawn(file, args, stdinFd, stdoutFd): starts the agent with posix_spawnp(), in a session of its
 * own (as Node's spawn with detached: true), with default signal handling, an empty signal mask and
 * our environment; its stdin and stdout the given descriptors, its stderr a new pipe. Returns
 * [pid, the pipe's read end (non-blocking)]. posix_spawnp() starts the program from a vfork: none of
 * the tap's memory is copied, and the agent runs a few ms sooner than from Node's spawn (a fork, and
 * Node's child_process and net modules to load first). A thread waits for its exit and tells the
 * main thread (EV_EXIT, exitStatus()). Throws an error whose code is the errno's name (ENOENT,
 * EACCES, ENOEXEC for a script without #!) when it cannot be started: the caller then asks Node's
 * spawn, which reports it as it always has (and runs such a script with /bin/sh, as execvp() does).
 */
static napi_value js_spawn(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  int32_t in_fd, out_fd;
  uint32_t n = 0;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (!initialized || agent_pid > 0 || argc < 4 || napi_get_array_length(env, argv[1], &n) != napi_ok || !get_int(env, argv[2], &in_fd) || !get_int(env, argv[3], &out_fd)) {
    napi_throw_type_error(env, NULL, "spawn(file, args, stdinFd, stdoutFd), once, after init()");
    return NULL;
  }
  char **args = calloc(n + 2, sizeof *args);
  int ok = args != NULL && (args[0] = get_string(env, argv[0])) != NULL;
  for (uint32_t i = 0; ok && i < n; i++) {
    napi_value a;
    ok = napi_get_element(env, argv[1], i, &a) == napi_ok && (args[i + 1] = get_string(env, a)) != NULL;
  }
  int err = ok ? 0 : ENOMEM;
  int errp[2] = { -1, -1 };
  pid_t pid = -1;
  if (!err && pipe2(errp, O_CLOEXEC) != 0) err = errno;
  if (!err) {
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    sigset_t all, none;
    sigfillset(&all);
    add_internal_signals(&all);
    sigemptyset(&none);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in_fd, 0);
    posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
    posix_spawn_file_actions_adddup2(&fa, errp[1], 2);
    posix_spawnattr_init(&attr);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    err = posix_spawnp(&pid, args[0], &fa, &attr, args, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    close(errp[1]);
  }
  for (uint32_t i = 0; args && i <= n; i++) free(args[i]);
  free(args);
  if (!err) {
    agent_pid = pid;
    pthread_attr_t attr;
    pthread_t t;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    if (pthread_create(&t, &attr, wait_thread, NULL) != 0) {
      /* Its exit could not be waited for: it goes, and the caller starts it the other way. */
      err = EAGAIN;
      kill(pid, SIGKILL);
      while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
      agent_pid = -1;
    }
    pthread_attr_destroy(&attr);
  }
  if (err) {
    if (errp[0] >= 0) close(errp[0]);
    napi_throw_error(env, errno_code(err), strerror(err));
    return NULL;
  }
  fcntl(errp[0], F_SETFL, fcntl(errp[0], F_GETFL) | O_NONBLOCK);
  napi_value arr;
  CHECK(napi_create_array_with_length(env, 2, &arr));
  CHECK(napi_set_element(env, arr, 0, num(env, pid)));
  CHECK(napi_set_element(env, arr, 1, num(env, errp[0])));
  return arr;
}

/* exitStatus(): null while the agent runs, then [exit code or null, signal number or null]. */
static napi_value js_exit_status(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value v, nul;
  CHECK(napi_get_null(env, &nul));
  if (!__atomic_load_n(&agent_exited, __ATOMIC_ACQUIRE)) return nul;
  int st = agent_status;
  CHECK(napi_create_array_with_length(env, 2, &v));
  CHECK(napi_set_element(env, v, 0, WIFEXITED(st) ? num(env, WEXITSTATUS(st)) : nul));
  CHECK(napi_set_element(env, v, 1, WIFSIGNALED(st) ? num(env, WTERMSIG(st)) : nul));
  return v;
}

NAPI_MODULE_INIT() {
  napi_property_descriptor props[] = {
    { "nowMs", NULL, js_now_ms, NULL, NULL, NULL, napi_enumerable, NULL },
    { "pipes", NULL, js_pipes, NULL, NULL, NULL, napi_enumerable, NULL },
    { "closeFd", NULL, js_close_fd, NULL, NULL, NULL, napi_enumerable, NULL },
    { "init", NULL, js_init, NULL, NULL, NULL, napi_enumerable, NULL },
    { "start", NULL, js_start, NULL, NULL, NULL, napi_enumerable, NULL },
    { "push", NULL, js_push, NULL, NULL, NULL, napi_enumerable, NULL },
    { "stopRecording", NULL, js_stop_recording, NULL, NULL, NULL, napi_enumerable, NULL },
    { "state", NULL, js_state, NULL, NULL, NULL, napi_enumerable, NULL },
    { "errnoCode", NULL, js_errno_code, NULL, NULL, NULL, napi_enumerable, NULL },
    { "spawn", NULL, js_spawn, NULL, NULL, NULL, napi_enumerable, NULL },
    { "exitStatus", NULL, js_exit_status, NULL, NULL, NULL, napi_enumerable, NULL },
    { "raiseDefault", NULL, js_raise_default, NULL, NULL, NULL, napi_enumerable, NULL },
    { "punchHole", NULL, js_punch_hole, NULL, NULL, NULL, napi_enumerable, NULL },
  };
  if (napi_define_properties(env, exports, sizeof props / sizeof props[0], props) != napi_ok) return NULL;
  return exports;
}
