/* Linux system calls that Glibc's Swift module does not expose: epoll, eventfd, accept4. */
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

/* accept4 is declared by glibc only under _GNU_SOURCE, which would clash with Glibc's module. */
extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);
static inline int clinux_accept4(int fd, int flags) { return accept4(fd, 0, 0, flags); }
