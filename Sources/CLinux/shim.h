/* Linux system calls that Glibc's Swift module does not expose: epoll, eventfd, accept4,
   pipe2, posix_spawn's closefrom action. */
#include <spawn.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

/* accept4 is declared by glibc only under _GNU_SOURCE, which would clash with Glibc's module. */
extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);
static inline int clinux_accept4(int fd, int flags) { return accept4(fd, 0, 0, flags); }

/* pipe2 is declared only under _GNU_SOURCE too. */
extern int pipe2(int fds[2], int flags);

/* glibc 2.34+: the child closes every descriptor from `from` on (declared only under _GNU_SOURCE). */
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

/* setns moves the calling thread into another namespace (tests: a network namespace of their
   own); declared only under _GNU_SOURCE. */
extern int setns(int fd, int nstype);
