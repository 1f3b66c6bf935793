/*
 * The tap's native forwarder: one thread per direction moves bytes from one descriptor to the
 * other and puts a copy of each chunk into the recorder's ring (ring.ts: same layout, same records)
 * just before handing it on. The client's input goes with plain read() and write() calls, as `cat`
 * does, plus one memcpy into the ring. The agent's output (nearly all the bytes) goes without a copy
 * on the way through: tee() duplicates its pages into a pipe of ours, which is read straight into
 * the ring (the recording's one copy), and splice() moves the pages on to the client (see
 * forward_spliced; ACP_INSPECT_ZERO_COPY=0 turns it off). JavaScript never sees the bytes.
 *
 * Everything that goes into the ring passes through push() under one mutex: the two forwarding
 * threads' chunks and the main thread's control records (events, the finish), so records keep the
 * order they were pushed in. When the ring is full (the recorder stalled), records go on, in order,
 * into the overflow file and a marker in the ring points the recorder to them once the ring has room
 * (the same protocol recorder-client.ts follows on the JavaScript path).
 *
 * Threads never call into JavaScript. They talk to it through two pipes: one byte on the wake pipe
 * when the recorder worker sleeps on an empty ring (it reads that pipe with an ordinary socket), and
 * one byte on the event pipe when the main thread has something to do (see EV_*). Nothing here needs
 * tearing down at exit: a thread blocked in read() or write() ends with the process.
 *
 * It also starts the agent (spawn(): posix_spawnp, and a thread that waits for its exit), which
 * costs the tap's start-up less than Node's spawn does.
 *
 * Little-endian machines only (the ring's header is written in the machine's byte order); the
 * loader in native.ts refuses the module elsewhere and the tap uses its JavaScript forwarder.
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

/* Ring layout (ring.ts): Int32 control slots, then the data area. */
#define SLOT_W 0
#define SLOT_R 1
#define SLOT_SIG 2
#define SLOT_WAITING 3
/* Bumped for each chunk spilled straight into the overflow file (a burst: see spill_chunk). */
#define SLOT_SPILLED 4
/* Int64 at byte 40 (slots 10-11): overflow bytes the recorder has taken so far (recorder-worker.ts). */
#define SLOT_OV_TAKEN 10
#define CTL_BYTES 64
#define HEADER 16
#define RING_CONTROL 3
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
#define EV_PENDING 'P'  /* records wait for the ring (overflow marker, control, gap): call flush() */
#define EV_A2C_END 'E'  /* the agent's stdout ended and all of it was handed on */
#define EV_EXIT 'X'     /* the agent spawned by spawn() exited: see exitStatus() */

/*
 * A burst: this much unread in the ring. The agent's output then goes into the overflow file
 * directly (spill_chunk) until it pauses for SPILL_QUIET_MS; a region of it is handed to the
 * recorder every SPILL_REGION bytes, and whenever the agent's pipe stays dry for SPILL_DRY_MS.
 */
#define SPILL_AT(cap) ((cap) / 16)
#define SPILL_QUIET_MS 25.0
#define SPILL_REGION (1u << 20)
#define SPILL_DRY_MS 2
/* Overflow file space kept when it is written over from the start again (see rewind_overflow). */
#define OVERFLOW_KEEP ((off_t)64 << 20)

struct backlog_item {
  struct backlog_item *next;
  uint32_t len;
  double t;
  char data[];
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int32_t *ctl;          /* the ring's control slots */
static uint8_t *data;         /* the ring's data area */
static uint32_t cap;          /* its size, a power of two */
static napi_ref ring_ref;     /* keeps the ring's memory alive */
static double base_ms;        /* t = monotonic ms - base_ms */
static int wake_w = -1, events_w = -1;
static int overflow_fd = -1;
static int64_t ov_pos = 0, ov_from = -1;
/* Bytes of records ever written to the overflow file: once the recorder has taken them all, it is written over. */
static int64_t ov_written = 0;
/* For stats(): chunks spilled straight into the overflow file, and times it was written over from the start. */
static double spilled_chunks = 0, ov_rewinds = 0;
/* Set when a spill failed (the file system is full): no spilling until the file is written over. */
static int spill_blocked = 0;
static int ov_broken = 0;
static uint64_t dropped[3];
static struct backlog_item *backlog_head, *backlog_tail;
static int initialized = 0, started = 0;
/* Cleared when the recorder is gone: records are then not kept anywhere (forwarding goes on). */
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

/* ---- the ring (caller holds mu) -------------------------------------------------------------- */

static uint32_t ring_free(void) {
  uint32_t w = (uint32_t)__atomic_load_n(&ctl[SLOT_W], __ATOMIC_ACQUIRE);
  uint32_t r = (uint32_t)__atomic_load_n(&ctl[SLOT_R], __ATOMIC_ACQUIRE);
  return cap - (w - r);
}

static void copy_in(uint32_t pos, const void *src, uint32_t len) {
  uint32_t off = pos & (cap - 1);
  uint32_t first = len < cap - off ? len : cap - off;
  memcpy(data + off, src, first);
  if (first < len) memcpy(data, (const uint8_t *)src + first, len - first);
}

/* A record's header (ring.ts encodeHeader): payload length u32, type u32, t f64. */
static void make_header(uint8_t head[HEADER], int type, double t, uint32_t len) {
  uint32_t ty = (uint32_t)type;
  memcpy(head, &len, 4);
  memcpy(head + 4, &ty, 4);
  memcpy(head + 8, &t, 8);
}

/* Publishes a record whose payload is already in place at w + HEADER: its header, then W. */
static void ring_commit(int type, double t, uint32_t w, uint32_t len) {
  uint8_t head[HEADER];
  make_header(head, type, t, len);
  copy_in(w, head, HEADER);
  __atomic_store_n(&ctl[SLOT_W], (int32_t)(w + HEADER + PAD8(len)), __ATOMIC_RELEASE);
  /* Wake the reader only if it sleeps, and only once per sleep. */
  int32_t one = 1;
  if (__atomic_load_n(&ctl[SLOT_WAITING], __ATOMIC_SEQ_CST) == 1 &&
      __atomic_compare_exchange_n(&ctl[SLOT_WAITING], &one, 0, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
    __atomic_add_fetch(&ctl[SLOT_SIG], 1, __ATOMIC_SEQ_CST);
    signal_fd(wake_w, 'w');
  }
}

static int ring_write(int type, double t, const void *payload, uint32_t len) {
  uint32_t need = HEADER + PAD8(len);
  if (need > ring_free()) return 0;
  uint32_t w = (uint32_t)__atomic_load_n(&ctl[SLOT_W], __ATOMIC_RELAXED);
  copy_in(w + HEADER, payload, len);
  ring_commit(type, t, w, len);
  return 1;
}

/* ---- overflow, backlog and gaps (caller holds mu) --------------------------------------------- */

static int pending_locked(void) {
  return ov_from >= 0 || backlog_head != NULL || (dropped[0] | dropped[1] | dropped[2]) != 0;
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

static int overflow_usable(void) {
  return !ov_broken && overflow_fd >= 0 && !backlog_head && (dropped[0] | dropped[1] | dropped[2]) == 0;
}

/*
 * Before a new region: once the recorder has taken everything the overflow file holds, the file is
 * written over from the start (its pages reused; what lies beyond OVERFLOW_KEEP given back).
 */
static void rewind_overflow(void) {
  if (ov_from >= 0 || ov_pos == 0) return;
  if (__atomic_load_n((int64_t *)(ctl + SLOT_OV_TAKEN), __ATOMIC_ACQUIRE) != ov_written) return;
  if (ov_pos > OVERFLOW_KEEP && ftruncate(overflow_fd, OVERFLOW_KEEP) != 0) { /* space comes back at exit */ }
  ov_pos = 0;
  ov_rewinds++;
  spill_blocked = 0;
}

static int overflow_record(int type, double t, const void *payload, uint32_t len) {
  if (!overflow_usable()) return 0;
  rewind_overflow();
  static const uint8_t zeros[8];
  uint8_t head[HEADER];
  make_header(head, type, t, len);
  struct iovec iov[3] = {
    { head, HEADER }, { (void *)payload, len }, { (void *)zeros, PAD8(len) - len },
  };
  if (!write_all_at(overflow_fd, iov, 3, ov_pos)) {
    ov_broken = 1;
    return 0;
  }
  if (ov_from < 0) {
    ov_from = ov_pos;
    signal_fd(events_w, EV_PENDING);
  }
  ov_pos += HEADER + PAD8(len);
  ov_written += HEADER + PAD8(len);
  return 1;
}

/* Writes what waits (the overflow marker, control records, gap markers); 1 when nothing waits. */
static int flush_locked(double t) {
  char msg[160];
  if (ov_from >= 0) {
    if (ring_free() < cap / 4) return 0;
    int n = snprintf(msg, sizeof msg, "{\"overflow\":{\"fd\":%d,\"from\":%lld,\"to\":%lld}}", overflow_fd, (long long)ov_from, (long long)ov_pos);
    if (!ring_write(RING_CONTROL, t, msg, (uint32_t)n)) return 0;
    ov_from = -1;
  }
  while (backlog_head) {
    if (!ring_write(RING_CONTROL, backlog_head->t, backlog_head->data, backlog_head->len)) return 0;
    struct backlog_item *b = backlog_head;
    backlog_head = b->next;
    if (!backlog_head) backlog_tail = NULL;
    free(b);
  }
  for (int c = 0; c < 3; c++) {
    if (dropped[c] == 0) continue;
    int n = snprintf(msg, sizeof msg, "{\"gap\":%d,\"t\":%.6f,\"bytes\":%llu}", c, t, (unsigned long long)dropped[c]);
    if (!ring_write(RING_CONTROL, t, msg, (uint32_t)n)) return 0;
    dropped[c] = 0;
  }
  return 1;
}

/*
 * Hands one record to the recorder, in order, never waiting: the ring, else the overflow file, else
 * (a chunk) a gap or (a control record, never dropped) the backlog. Caller holds mu and has checked
 * `recording`; returns 1 when records now wait for the ring and did not before (signal the main thread).
 */
static int push_locked(int type, double t, const void *payload, uint32_t len) {
  int was_pending = pending_locked();
  int in_ring = 0;
  if (!was_pending || (ring_free() >= cap / 4 && flush_locked(t))) in_ring = ring_write(type, t, payload, len);
  if (!in_ring && !overflow_record(type, t, payload, len)) {
    if (type == RING_CONTROL) {
      struct backlog_item *b = malloc(sizeof *b + len);
      if (b) {
        b->next = NULL;
        b->len = len;
        b->t = t;
        memcpy(b->data, payload, len);
        if (backlog_tail) backlog_tail->next = b; else backlog_head = b;
        backlog_tail = b;
      }
    } else {
      dropped[type] += len;
    }
  }
  return !was_pending && pending_locked();
}

static void push(int type, double t, const void *payload, uint32_t len) {
  if (!recording) return;
  pthread_mutex_lock(&mu);
  int signal = 0;
  /* Stopped while we waited: the ring may be on its way out. */
  if (recording) signal = push_locked(type, t, payload, len);
  pthread_mutex_unlock(&mu);
  if (signal) signal_fd(events_w, EV_PENDING);
}

/* Reads exactly n bytes that are already waiting in fd (a pipe only we read); 0 on failure. */
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
 * push() for a chunk that waits in the pipe `fd` (n bytes, all there): read straight into the ring
 * when it goes there, so the bytes are copied once; else through `buf` into the overflow file or a
 * gap. The pipe is drained either way. 0 when the pipe could not be read (it then holds the chunk).
 */
static int push_from_pipe(int type, double t, int fd, uint32_t n, uint8_t *buf) {
  struct iovec one = { buf, n };
  pthread_mutex_lock(&mu);
  if (!recording) {
    pthread_mutex_unlock(&mu);
    return read_exactly(fd, &one, 1, n);
  }
  int signal = 0, ok = 1;
  uint32_t need = HEADER + PAD8(n);
  if (!pending_locked() && need <= ring_free()) {
    uint32_t w = (uint32_t)__atomic_load_n(&ctl[SLOT_W], __ATOMIC_RELAXED);
    uint32_t off = (w + HEADER) & (cap - 1);
    uint32_t first = n < cap - off ? n : cap - off;
    struct iovec iov[2] = { { data + off, first }, { data, n - first } };
    ok = read_exactly(fd, iov, n > first ? 2 : 1, n);
    if (ok) ring_commit(type, t, w, n);
  } else {
    ok = read_exactly(fd, &one, 1, n);
    if (ok) signal = push_locked(type, t, buf, n);
  }
  pthread_mutex_unlock(&mu);
  if (signal) signal_fd(events_w, EV_PENDING);
  return ok;
}

/*
 * During a burst, a chunk of the agent's output that waits in the pipe `fd` (n bytes, all there)
 * goes straight into the overflow file as one record: its header, then its bytes moved by splice()
 * (copied once, by the kernel), then padding. The ring would cost two copies: one into it and one
 * when the recorder, behind in a burst, captures the ring into its spill file. The recorder finds the
 * record through the region's marker in the ring, at its place among the other records. Returns 0
 * (nothing written, the chunk possibly drained from `fd`: tee() it again) when the file cannot take
 * it; the caller then records it the ordinary way.
 */
static int spill_chunk(double t, int fd, uint32_t n) {
  pthread_mutex_lock(&mu);
  if (!recording || !overflow_usable()) {
    pthread_mutex_unlock(&mu);
    return 0;
  }
  rewind_overflow();
  if (spill_blocked) {
    pthread_mutex_unlock(&mu);
    return 0;
  }
  static const uint8_t zeros[8];
  uint8_t head[HEADER];
  make_header(head, A2C, t, n);
  struct iovec h = { head, HEADER };
  loff_t off = ov_pos + HEADER;
  size_t left = n;
  int ok = write_all_at(overflow_fd, &h, 1, ov_pos);
  while (ok && left > 0) {
    ssize_t k = splice(fd, NULL, overflow_fd, &off, left, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) ok = 0;
    else left -= (size_t)k;
  }
  struct iovec pad = { (void *)zeros, PAD8(n) - n };
  if (ok && pad.iov_len > 0) ok = write_all_at(overflow_fd, &pad, 1, off);
  if (!ok) {
    /*
     * ENOSPC (a small /dev/shm), or a file splice() cannot write to: the ordinary way (the ring) until
     * the file is written over from the start. What this try wrote past ov_pos counts for nothing.
     */
    spill_blocked = 1;
    pthread_mutex_unlock(&mu);
    return 0;
  }
  if (ov_from < 0) ov_from = ov_pos;
  ov_pos += HEADER + PAD8(n);
  ov_written += HEADER + PAD8(n);
  __atomic_add_fetch(&ctl[SLOT_SPILLED], 1, __ATOMIC_RELEASE);
  spilled_chunks++;
  /* Hand on the region so far once it is large; the recorder captures the marker, not the bytes. */
  if (ov_pos - ov_from >= SPILL_REGION) flush_locked(t);
  pthread_mutex_unlock(&mu);
  return 1;
}

/* The agent's pipe ran dry: hand the spilled region on now (or have the main thread retry). */
static void spill_pause(void) {
  pthread_mutex_lock(&mu);
  int retry = recording && pending_locked() && !flush_locked(now_ms() - base_ms);
  pthread_mutex_unlock(&mu);
  if (retry) signal_fd(events_w, EV_PENDING);
}

/* Unread bytes in the ring (a burst when SPILL_AT or more). */
static uint32_t ring_used(void) {
  return cap - ring_free();
}

static void push_control(double t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void push_control(double t, const char *fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (n > 0 && n < (int)sizeof msg) push(RING_CONTROL, t, msg, (uint32_t)n);
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
 * The agent's output without copies on the way through: tee() duplicates each chunk into a pipe of
 * our own, whose bytes are read straight into the ring (the one copy, for the recording), then
 * splice() hands the agent's pages on to the client. Record before write, as on the copy path.
 * During a burst the chunks go to the overflow file instead of the ring (spill_chunk). Returns 1 at
 * the end of the agent's output, 0 to go on with the copy loop (tee() or splice() not possible
 * here, e.g. the client's end is a file opened for appending).
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
  int ended = 0, spilling = 0;
  double last = -1e9;
  for (;;) {
    ssize_t n = tee(d->in, p[1], chunk, SPLICE_F_NONBLOCK);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      /*
       * The agent's pipe ran dry. In a burst that happens between most of its writes: the spilled
       * region is handed on only once the pipe stays dry for SPILL_DRY_MS (or at SPILL_REGION), so
       * the recorder wakes for a marker a megabyte, not one a chunk.
       */
      if (spilling) {
        struct pollfd pf = { d->in, POLLIN, 0 };
        int r;
        do r = poll(&pf, 1, SPILL_DRY_MS); while (r < 0 && errno == EINTR);
        if (r > 0) continue;
        spill_pause();
      }
      wait_fd(d->in, POLLIN);
      continue;
    }
    if (n < 0) break;  /* tee() not possible: the copy loop reads the same bytes */
    if (n == 0) { ended = 1; break; }
    double t = now_ms() - base_ms;
    /* A burst: the ring is filling. It ends when the agent has been quiet for SPILL_QUIET_MS. */
    if (spilling && t - last > SPILL_QUIET_MS) spilling = 0;
    if (!spilling && ring_used() >= SPILL_AT(cap)) spilling = 1;
    last = t;
    if (spilling && !spill_chunk(t, p[0], (uint32_t)n)) {
      spilling = 0;
      /* What the failed spill left in our pipe goes; the chunk is still first in the agent's pipe. */
      struct iovec rest = { buf, chunk };
      while (readv(p[0], &rest, 1) > 0) {}
      do n = tee(d->in, p[1], (size_t)n, 0); while (n < 0 && errno == EINTR);
      if (n <= 0) break;
    }
    if (!spilling && !push_from_pipe(A2C, t, p[0], (uint32_t)n, buf)) break;
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
 * init(ring: Uint8Array over the ring's SharedArrayBuffer, baseMs, overflowFd): takes the ring,
 * returns [wakeFd, eventsFd], the read ends of the wake and event pipes (non-blocking).
 */
static napi_value js_init(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (initialized) { napi_throw_error(env, NULL, "acp-inspect native: already initialized"); return NULL; }
  if (argc < 3) { napi_throw_type_error(env, NULL, "init(ring, baseMs, overflowFd)"); return NULL; }
  napi_typedarray_type type;
  size_t length;
  void *ptr;
  CHECK(napi_get_typedarray_info(env, argv[0], &type, &length, &ptr, NULL, NULL));
  if (type != napi_uint8_array || length <= CTL_BYTES || ((length - CTL_BYTES) & (length - CTL_BYTES - 1)) != 0 || ((uintptr_t)ptr & 7) != 0) {
    napi_throw_type_error(env, NULL, "acp-inspect native: the ring must be a Uint8Array of 64 + 2^k bytes");
    return NULL;
  }
  double base;
  int32_t ofd;
  CHECK(napi_get_value_double(env, argv[1], &base));
  if (!get_int(env, argv[2], &ofd)) ofd = -1;
  int wake[2], ev[2];
  if (!make_pipe(wake, 1)) { napi_throw_error(env, NULL, strerror(errno)); return NULL; }
  if (!make_pipe(ev, 1)) { close(wake[0]); close(wake[1]); napi_throw_error(env, NULL, strerror(errno)); return NULL; }
  CHECK(napi_create_reference(env, argv[0], 1, &ring_ref));
  ctl = (int32_t *)ptr;
  data = (uint8_t *)ptr + CTL_BYTES;
  cap = (uint32_t)(length - CTL_BYTES);
  base_ms = base;
  overflow_fd = ofd;
  wake_w = wake[1];
  events_w = ev[1];
  initialized = 1;
  napi_value arr;
  CHECK(napi_create_array_with_length(env, 2, &arr));
  CHECK(napi_set_element(env, arr, 0, num(env, wake[0])));
  CHECK(napi_set_element(env, arr, 1, num(env, ev[0])));
  return arr;
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
  if (!initialized || argc < 3 || !get_int(env, argv[0], &type) || type < 0 || type > RING_CONTROL) { napi_throw_type_error(env, NULL, "push(type, t, bytes)"); return NULL; }
  CHECK(napi_get_value_double(env, argv[1], &t));
  CHECK(napi_get_typedarray_info(env, argv[2], &ty, &len, &ptr, NULL, NULL));
  push(type, t, ptr, (uint32_t)len);
  return NULL;
}

/* flush(t): writes what waits for the ring; true when nothing waits any more. */
static napi_value js_flush(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  double t = 0;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc >= 1) napi_get_value_double(env, argv[0], &t);
  int done = 1;
  if (initialized) {
    pthread_mutex_lock(&mu);
    done = !pending_locked() || flush_locked(t);
    pthread_mutex_unlock(&mu);
  }
  napi_value v;
  napi_get_boolean(env, done, &v);
  return v;
}

/*
 * stopRecording(): the recorder is gone, or the process is about to exit (the ring's memory goes
 * with the JavaScript heap); records are no longer kept (forwarding goes on). Once it returns, no
 * thread is inside push() and none will write to the ring again.
 */
static napi_value js_stop_recording(napi_env env, napi_callback_info info) {
  (void)info;
  pthread_mutex_lock(&mu);
  recording = 0;
  while (backlog_head) {
    struct backlog_item *b = backlog_head;
    backlog_head = b->next;
    free(b);
  }
  backlog_tail = NULL;
  ov_from = -1;
  dropped[0] = dropped[1] = dropped[2] = 0;
  pthread_mutex_unlock(&mu);
  return NULL;
}

/* state(): bits 1 agent output ended, 4 writing to the client, 8 client broken. */
static napi_value js_state(napi_env env, napi_callback_info info) {
  (void)info;
  return num(env, (a2c_ended ? 1 : 0) | (a2c_writing ? 4 : 0) | (client_broken ? 8 : 0));
}

/* stats(): [chunks spilled straight into the overflow file, times it was written over, its size now]. */
static napi_value js_stats(napi_env env, napi_callback_info info) {
  (void)info;
  pthread_mutex_lock(&mu);
  double v[3] = { spilled_chunks, ov_rewinds, (double)ov_pos };
  pthread_mutex_unlock(&mu);
  napi_value arr;
  CHECK(napi_create_array_with_length(env, 3, &arr));
  for (uint32_t i = 0; i < 3; i++) CHECK(napi_set_element(env, arr, i, num(env, v[i])));
  return arr;
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
    { "flush", NULL, js_flush, NULL, NULL, NULL, napi_enumerable, NULL },
    { "stopRecording", NULL, js_stop_recording, NULL, NULL, NULL, napi_enumerable, NULL },
    { "state", NULL, js_state, NULL, NULL, NULL, napi_enumerable, NULL },
    { "stats", NULL, js_stats, NULL, NULL, NULL, napi_enumerable, NULL },
    { "errnoCode", NULL, js_errno_code, NULL, NULL, NULL, napi_enumerable, NULL },
    { "spawn", NULL, js_spawn, NULL, NULL, NULL, napi_enumerable, NULL },
    { "exitStatus", NULL, js_exit_status, NULL, NULL, NULL, napi_enumerable, NULL },
    { "raiseDefault", NULL, js_raise_default, NULL, NULL, NULL, napi_enumerable, NULL },
  };
  if (napi_define_properties(env, exports, sizeof props / sizeof props[0], props) != napi_ok) return NULL;
  return exports;
}
