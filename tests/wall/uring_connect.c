/* A Unix socket made without socket(2), through io_uring's IORING_OP_SOCKET, then connected to
   the abstract socket argv[1] names: how the audit reached the person's X11 and D-Bus sockets
   from the environment build (tests/wall/test_seccomp.py compiles and runs it behind the wall).
   Prints one line for each step: what socket(AF_UNIX) says, what io_uring_setup says, what the
   ring's socket is, and, once one is made, what its connect says. */
#include <errno.h>
#include <linux/io_uring.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

static void *ring_map(int ring, size_t size, off_t what) {
    return mmap(0, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, what);
}

/* A new AF_UNIX stream socket made by the ring, or -errno. */
static int uring_socket(void) {
    struct io_uring_params p;
    memset(&p, 0, sizeof p);
    int ring = (int)syscall(__NR_io_uring_setup, 4, &p);
    printf("io_uring_setup: %s\n", ring < 0 ? strerror(errno) : "made");
    if (ring < 0) return -errno;
    size_t sq_size = p.sq_off.array + p.sq_entries * sizeof(unsigned);
    size_t cq_size = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
    if (sq_size < cq_size) sq_size = cq_size;  /* one mapping for both (IORING_FEAT_SINGLE_MMAP) */
    char *sq = ring_map(ring, sq_size, IORING_OFF_SQ_RING);
    char *cq = (p.features & IORING_FEAT_SINGLE_MMAP) ? sq : ring_map(ring, cq_size, IORING_OFF_CQ_RING);
    struct io_uring_sqe *sqes = ring_map(ring, p.sq_entries * sizeof *sqes, IORING_OFF_SQES);
    if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED) return -errno;
    unsigned *tail = (unsigned *)(sq + p.sq_off.tail), *mask = (unsigned *)(sq + p.sq_off.ring_mask);
    unsigned at = *tail & *mask;
    memset(&sqes[at], 0, sizeof sqes[at]);
    sqes[at].opcode = IORING_OP_SOCKET;
    sqes[at].fd = AF_UNIX;
    sqes[at].off = SOCK_STREAM;
    ((unsigned *)(sq + p.sq_off.array))[at] = at;
    __atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
    if (syscall(__NR_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0) return -errno;
    unsigned head = *(unsigned *)(cq + p.cq_off.head) & *(unsigned *)(cq + p.cq_off.ring_mask);
    return ((struct io_uring_cqe *)(cq + p.cq_off.cqes))[head].res;
}

int main(int argc, char **argv) {
    const char *name = argc > 1 ? argv[1] : "landwatch-test";
    int plain = socket(AF_UNIX, SOCK_STREAM, 0);
    printf("socket(AF_UNIX): %s\n", plain >= 0 ? "made" : strerror(errno));
    int made = uring_socket();
    printf("io_uring socket: %s\n", made < 0 ? strerror(-made) : "made");
    if (made < 0) return 1;
    struct sockaddr_un to;
    memset(&to, 0, sizeof to);
    to.sun_family = AF_UNIX;
    size_t length = strlen(name);
    memcpy(to.sun_path + 1, name, length); /* abstract: a NUL first */
    int said = connect(made, (struct sockaddr *)&to, offsetof(struct sockaddr_un, sun_path) + 1 + length);
    printf("connect to @%s: %s\n", name, said < 0 ? strerror(errno) : "connected");
    return said < 0;
}
