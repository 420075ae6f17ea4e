// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

/*
 * The C reference loop for scripts/bench.sh: the same IOCTL_AFD_POLL,
 * completion port and socket calls that the poller's AFD backend makes, for
 * the same workloads, with nothing around them. It is the floor for the Go
 * code on this path.
 *
 *   cloop wait IDLE OPS   one readable UDP socket among IDLE idle ones, each
 *                         polled for Readable (Level): OPS times, dequeue the
 *                         packet (GetQueuedCompletionStatusEx, up to 8) and
 *                         submit the poll again. Prints "ns/op N".
 *   cloop mem SOCKETS     the working set that SOCKETS polls out add (the
 *                         sockets are opened first). Prints "ws-B/socket N".
 *   cloop echo THREADS    the echo server of examples/echo on THREADS threads
 *                         (one-shot polls of Readable|HangUp, re-submitted
 *                         after each echo). Prints "port N", serves until its
 *                         standard input ends.
 *
 * Build: x86_64-w64-mingw32-gcc -O2 -Wall -Werror -o cloop.exe cloop.c
 *        -lws2_32 -lntdll -lpsapi
 */
#define WIN32_LEAN_AND_MEAN
#include <winsock2.h>
#include <windows.h>
#include <winternl.h>
#include <psapi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../afd.h"

#ifndef STATUS_PENDING
#define STATUS_PENDING 0x00000103
#endif

/* The poller's masks (poller/afd_windows.go, afdEvents). */
#define ALWAYS (AFD_POLL_ABORT | AFD_POLL_CONNECT_FAIL | AFD_POLL_LOCAL_CLOSE)
#define READABLE (AFD_POLL_RECEIVE | AFD_POLL_ACCEPT | AFD_POLL_DISCONNECT)
#define HANGUP AFD_POLL_DISCONNECT

/* One socket's poll; its address is the packet's context. */
typedef struct {
    IO_STATUS_BLOCK iosb;
    AFD_POLL_INFO info;
    SOCKET s;
    HANDLE base;
    ULONG events;
} poll_t;

static HANDLE port, afd;

static void die(const char *what, long code)
{
    fprintf(stderr, "cloop: %s: %ld\n", what, code);
    exit(1);
}

static void open_afd(void)
{
    UNICODE_STRING name;
    OBJECT_ATTRIBUTES oa;
    IO_STATUS_BLOCK iosb;
    NTSTATUS st;

    port = CreateIoCompletionPort(INVALID_HANDLE_VALUE, NULL, 0, 0);
    if (!port)
        die("CreateIoCompletionPort", GetLastError());
    RtlInitUnicodeString(&name, L"\\Device\\Afd\\cloop");
    InitializeObjectAttributes(&oa, &name, 0, NULL, NULL);
    st = NtCreateFile(&afd, SYNCHRONIZE, &oa, &iosb, NULL, 0, FILE_SHARE_READ | FILE_SHARE_WRITE, FILE_OPEN, 0, NULL, 0);
    if (st)
        die("NtCreateFile \\Device\\Afd", st);
    if (!CreateIoCompletionPort(afd, port, 0, 0))
        die("CreateIoCompletionPort(afd)", GetLastError());
    if (!SetFileCompletionNotificationModes(afd, FILE_SKIP_SET_EVENT_ON_HANDLE))
        die("SetFileCompletionNotificationModes", GetLastError());
}

static void init_poll(poll_t *p, SOCKET s, ULONG events)
{
    DWORD n;
    p->s = s;
    p->events = events;
    if (WSAIoctl(s, SIO_BASE_HANDLE_, NULL, 0, &p->base, sizeof p->base, &n, NULL, NULL))
        die("SIO_BASE_HANDLE", WSAGetLastError());
}

static void submit(poll_t *p)
{
    NTSTATUS st;
    p->info.Timeout.QuadPart = INT64_MAX;
    p->info.NumberOfHandles = 1;
    p->info.Exclusive = 0;
    p->info.Handle = p->base;
    p->info.Events = p->events;
    p->info.Status = 0;
    p->iosb.Status = 0;
    p->iosb.Information = 0;
    st = NtDeviceIoControlFile(afd, NULL, NULL, p, &p->iosb, IOCTL_AFD_POLL, &p->info, sizeof p->info, &p->info, sizeof p->info);
    if (st != 0 && st != STATUS_PENDING)
        die("IOCTL_AFD_POLL", st);
}

static SOCKET udp(void)
{
    struct sockaddr_in a = {.sin_family = AF_INET};
    SOCKET s = socket(AF_INET, SOCK_DGRAM, IPPROTO_UDP);
    if (s == INVALID_SOCKET)
        die("socket", WSAGetLastError());
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(s, (struct sockaddr *)&a, sizeof a))
        die("bind", WSAGetLastError());
    return s;
}

static SOCKET *udps(int n)
{
    SOCKET *s = malloc(n * sizeof *s);
    for (int i = 0; i < n; i++)
        s[i] = udp();
    return s;
}

static int wait_bench(int idle, int ops)
{
    SOCKET *s = udps(idle + 1), sender = udp();
    poll_t *polls = calloc(idle + 1, sizeof *polls);
    struct sockaddr_in to;
    int len = sizeof to;
    OVERLAPPED_ENTRY e[8];
    ULONG n;
    LARGE_INTEGER f, t0, t1;

    open_afd();
    if (getsockname(s[idle], (struct sockaddr *)&to, &len))
        die("getsockname", WSAGetLastError());
    if (sendto(sender, "x", 1, 0, (struct sockaddr *)&to, sizeof to) != 1) /* never read */
        die("sendto", WSAGetLastError());
    for (int i = 0; i <= idle; i++) {
        init_poll(&polls[i], s[i], ALWAYS | READABLE);
        submit(&polls[i]);
    }
    QueryPerformanceFrequency(&f);
    QueryPerformanceCounter(&t0);
    for (int i = 0; i < ops; i++) {
        if (!GetQueuedCompletionStatusEx(port, e, 8, &n, 5000, FALSE))
            die("GetQueuedCompletionStatusEx", GetLastError());
        if (n != 1 || e[0].lpOverlapped != (OVERLAPPED *)&polls[idle].iosb)
            die("unexpected packets", n);
        submit(&polls[idle]); /* Level: poll again */
    }
    QueryPerformanceCounter(&t1);
    printf("ns/op %.0f\n", (double)(t1.QuadPart - t0.QuadPart) * 1e9 / f.QuadPart / ops);
    return 0;
}

static SIZE_T working_set(void)
{
    PROCESS_MEMORY_COUNTERS c = {.cb = sizeof c};
    if (!GetProcessMemoryInfo(GetCurrentProcess(), &c, sizeof c))
        die("GetProcessMemoryInfo", GetLastError());
    return c.WorkingSetSize;
}

static int mem_bench(int n)
{
    SOCKET *s = udps(n);
    SIZE_T before;
    poll_t *polls;

    open_afd();
    before = working_set();
    polls = calloc(n, sizeof *polls);
    for (int i = 0; i < n; i++) {
        init_poll(&polls[i], s[i], ALWAYS | READABLE);
        submit(&polls[i]);
    }
    printf("ws-B/socket %.0f\n", (double)(working_set() - before) / n);
    return 0;
}

static SOCKET listener;
static poll_t listen_poll;

static void accept_all(void)
{
    u_long on = 1;
    for (;;) {
        SOCKET c = accept(listener, NULL, NULL);
        poll_t *p;
        if (c == INVALID_SOCKET) {
            if (WSAGetLastError() != WSAEWOULDBLOCK)
                die("accept", WSAGetLastError());
            break;
        }
        if (ioctlsocket(c, FIONBIO, &on))
            die("FIONBIO", WSAGetLastError());
        p = calloc(1, sizeof *p);
        init_poll(p, c, ALWAYS | READABLE | HANGUP);
        submit(p);
    }
    submit(&listen_poll);
}

static void serve(poll_t *p, char *buf, int size)
{
    int n = recv(p->s, buf, size, 0);
    if (n == SOCKET_ERROR && WSAGetLastError() == WSAEWOULDBLOCK) {
        submit(p);
        return;
    }
    if (n <= 0) { /* end of stream or reset: no poll is out */
        closesocket(p->s);
        free(p);
        return;
    }
    for (int off = 0; off < n;) {
        int m = send(p->s, buf + off, n - off, 0);
        if (m == SOCKET_ERROR) {
            if (WSAGetLastError() != WSAEWOULDBLOCK)
                die("send", WSAGetLastError());
            Sleep(1);
            continue;
        }
        off += m;
    }
    submit(p);
}

static DWORD WINAPI worker(void *arg)
{
    static __thread char buf[64 << 10];
    OVERLAPPED_ENTRY e[16];
    ULONG n;
    (void)arg;
    for (;;) {
        if (!GetQueuedCompletionStatusEx(port, e, 16, &n, INFINITE, FALSE))
            die("GetQueuedCompletionStatusEx", GetLastError());
        for (ULONG i = 0; i < n; i++) {
            poll_t *p = (poll_t *)e[i].lpOverlapped;
            if (p->iosb.Status || p->info.NumberOfHandles == 0 || p->info.Events & AFD_POLL_LOCAL_CLOSE)
                continue; /* the socket is gone */
            if (p == &listen_poll)
                accept_all();
            else
                serve(p, buf, sizeof buf);
        }
    }
    return 0;
}

static int echo_server(int threads)
{
    struct sockaddr_in a = {.sin_family = AF_INET};
    int len = sizeof a;
    u_long on = 1;

    open_afd();
    listener = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (listener == INVALID_SOCKET || bind(listener, (struct sockaddr *)&a, sizeof a) ||
        listen(listener, SOMAXCONN) || getsockname(listener, (struct sockaddr *)&a, &len) ||
        ioctlsocket(listener, FIONBIO, &on))
        die("listen", WSAGetLastError());
    init_poll(&listen_poll, listener, ALWAYS | READABLE);
    submit(&listen_poll);
    for (int i = 0; i < threads; i++)
        if (!CreateThread(NULL, 0, worker, NULL, 0, NULL))
            die("CreateThread", GetLastError());
    printf("port %d\n", ntohs(a.sin_port));
    fflush(stdout);
    while (getchar() != EOF)
        ;
    return 0;
}

int main(int argc, char **argv)
{
    WSADATA wsa;
    int n = argc == 3 || argc == 4 ? atoi(argv[2]) : 0;
    if (WSAStartup(MAKEWORD(2, 2), &wsa))
        die("WSAStartup", WSAGetLastError());
    if (argc == 4 && !strcmp(argv[1], "wait") && n >= 0 && atoi(argv[3]) > 0)
        return wait_bench(n, atoi(argv[3]));
    if (argc == 3 && !strcmp(argv[1], "mem") && n > 0)
        return mem_bench(n);
    if (argc == 3 && !strcmp(argv[1], "echo") && n > 0)
        return echo_server(n);
    fprintf(stderr, "usage: cloop wait IDLE OPS | cloop mem SOCKETS | cloop echo THREADS\n");
    return 2;
}
