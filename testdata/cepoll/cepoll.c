// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

/*
 * The C reference echo server of "scripts/bench.sh linux": the epoll and
 * socket calls that the poller's echo server (examples/echo on the epoll
 * backend, internal/cmd/echoserver) makes, with nothing around them. It is
 * the floor for the Go code on this path, natively on Linux.
 *
 *   cepoll echo THREADS   THREADS threads wait on one epoll instance
 *                         (epoll_wait, up to 16 events); the listener and
 *                         every connection are one-shot (EPOLLONESHOT),
 *                         connections for EPOLLIN|EPOLLRDHUP; a readiness
 *                         goes to one thread, which accepts every waiting
 *                         connection (accept4, non-blocking) or reads what
 *                         the connection has and writes it back, then arms
 *                         it again (EPOLL_CTL_MOD). At the end of a stream,
 *                         or a reset, it removes (EPOLL_CTL_DEL) and closes
 *                         the connection. Prints "port N" and serves on
 *                         127.0.0.1:N until its standard input ends.
 *
 * Like a Go program, it raises its soft limit of descriptors to the hard
 * one first. An unexpected error exits with status 1, naming the call;
 * bad arguments with status 2.
 *
 * Build: gcc -O2 -Wall -Werror -pthread -o cepoll cepoll.c
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* The listener's epoll data; a connection's is its descriptor. */
#define LISTENER UINT64_MAX
#define CONN_EVENTS (EPOLLIN | EPOLLRDHUP | EPOLLONESHOT)

static int ep, listener;

static void die(const char *what)
{
    fprintf(stderr, "cepoll: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void ctl(int op, int fd, uint32_t events, uint64_t data)
{
    struct epoll_event e = {.events = events, .data.u64 = data};
    if (epoll_ctl(ep, op, fd, &e))
        die("epoll_ctl");
}

/* accept_all takes every waiting connection, then arms the listener. */
static void accept_all(void)
{
    for (;;) {
        int c = accept4(listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (c < 0) {
            if (errno == EAGAIN)
                break;
            if (errno == ECONNABORTED)
                continue; /* reset before it was taken: the next */
            die("accept4");
        }
        ctl(EPOLL_CTL_ADD, c, CONN_EVENTS, (uint64_t)c);
    }
    ctl(EPOLL_CTL_MOD, listener, EPOLLIN | EPOLLONESHOT, LISTENER);
}

static int reset(int err) { return err == ECONNRESET || err == EPIPE; }

/* serve reads what connection c has, writes it back and arms c again; at
 * the end of its stream, or a reset, it removes and closes c. */
static void serve(int c, char *buf, size_t size)
{
    ssize_t n = read(c, buf, size);
    if (n < 0 && errno == EAGAIN) {
        ctl(EPOLL_CTL_MOD, c, CONN_EVENTS, (uint64_t)c);
        return;
    }
    if (n < 0 && !reset(errno))
        die("read");
    for (ssize_t off = 0; n > 0 && off < n;) {
        ssize_t m = write(c, buf + off, n - off);
        if (m < 0 && errno == EAGAIN) { /* the peer reads its echoes first: rare */
            nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
            continue;
        }
        if (m < 0 && reset(errno)) {
            n = -1;
            break;
        }
        if (m < 0)
            die("write");
        off += m;
    }
    if (n <= 0) {
        ctl(EPOLL_CTL_DEL, c, 0, 0);
        close(c);
        return;
    }
    ctl(EPOLL_CTL_MOD, c, CONN_EVENTS, (uint64_t)c);
}

static void *worker(void *arg)
{
    static __thread char buf[64 << 10];
    struct epoll_event e[16];
    (void)arg;
    for (;;) {
        int n = epoll_wait(ep, e, 16, -1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            die("epoll_wait");
        for (int i = 0; i < n; i++) {
            if (e[i].data.u64 == LISTENER)
                accept_all();
            else
                serve((int)e[i].data.u64, buf, sizeof buf);
        }
    }
    return NULL;
}

static int echo_server(int threads)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    struct rlimit r;
    pthread_t t;

    if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
        r.rlim_cur = r.rlim_max;
        setrlimit(RLIMIT_NOFILE, &r); /* as Go's runtime does; a refusal keeps the limit */
    }
    ep = epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0)
        die("epoll_create1");
    listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (listener < 0 || bind(listener, (struct sockaddr *)&a, sizeof a) || listen(listener, SOMAXCONN) ||
        getsockname(listener, (struct sockaddr *)&a, &len))
        die("listen");
    ctl(EPOLL_CTL_ADD, listener, EPOLLIN | EPOLLONESHOT, LISTENER);
    for (int i = 0; i < threads; i++) {
        errno = pthread_create(&t, NULL, worker, NULL);
        if (errno)
            die("pthread_create");
    }
    printf("port %d\n", ntohs(a.sin_port));
    fflush(stdout);
    while (getchar() != EOF)
        ;
    return 0;
}

int main(int argc, char **argv)
{
    int n = argc == 3 ? atoi(argv[2]) : 0;
    if (argc == 3 && !strcmp(argv[1], "echo") && n > 0 && n <= 256)
        return echo_server(n);
    fprintf(stderr, "usage: cepoll echo THREADS (1 to 256)\n");
    return 2;
}
