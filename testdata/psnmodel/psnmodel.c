// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

/*
 * psnmodel: the reference model of ws2_32!ProcessSocketNotifications.
 *
 * It lets sockstate's own tests run every line that calls
 * ProcessSocketNotifications where the OS lacks the export (Wine, Windows
 * before build 20348). It is a model written from the public evidence, not
 * Windows: SPEC.md beside this file has one row per behaviour, with its
 * source and confidence, and says where the model cannot do what the OS
 * does. A change here comes with a change there. Runs against it are
 * labelled "model" and never count as Windows passes.
 *
 * How it works: registrations live in tables keyed by socket and by port
 * and key. The model learns of a socket's changes the way afd.sys does,
 * when they happen, never by sampling on a timer:
 *   - a condition rises (data, a connection, room, a hang-up): an
 *     IOCTL_AFD_POLL request it keeps out for the conditions that do not
 *     hold completes, on a completion port of its own served by one worker
 *     thread; or, on a loopback connection, the peer's send returns
 *     (hooks.c), and the model reads the registered end's state at once;
 *   - a condition falls (a drain, a full send buffer, an empty accept
 *     queue): the caller's own recv, send or accept returns, which the
 *     model watches (hooks.c);
 *   - a packet leaves the caller's port: the caller's dequeue returns
 *     (hooks.c);
 *   - a socket is closed: closesocket reaches NtClose (hooks.c).
 * It reads a socket's state with a zero-timeout AFD poll, posts
 * notifications with PostQueuedCompletionStatus (the registration's key,
 * the SOCK_NOTIFY_EVENT_* bits as the byte count), and dequeues with
 * GetQueuedCompletionStatusEx.
 *
 * What nobody has observed is a switch, read from the environment variable
 * SOCKSTATE_PSN_MODEL ("name=value,..."; SPEC.md lists them).
 *
 * Build (scripts/test.sh does): CC -shared -O2 -Wall -Werror -o psnmodel.dll
 *   psnmodel.c hooks.c psnmodel.def -lws2_32 -lntdll -lpsapi -Wl,--kill-at
 */
#define WIN32_LEAN_AND_MEAN
#include <winsock2.h>
#include <windows.h>
#include <winternl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../socknotify.h"
#include "../afd.h"
#include "model.h"

/* SOCK_NOTIFY_EVENT_* (NE_: winbase.h has EV_ names of its own). */
#define NE_IN 0x01u
#define NE_OUT 0x02u
#define NE_HANGUP 0x04u
#define NE_ERR 0x40u
#define NE_REMOVE 0x80u
#define OP_NONE 0x00
#define OP_ENABLE 0x01
#define OP_DISABLE 0x02
#define OP_REMOVE 0x04
#define TR_ONESHOT 0x01
#define TR_PERSISTENT 0x02
#define TR_LEVEL 0x04
#define TR_EDGE 0x08

#define AFD_ALL (AFD_POLL_RECEIVE | AFD_POLL_SEND | AFD_POLL_DISCONNECT | AFD_POLL_ABORT | AFD_POLL_LOCAL_CLOSE | AFD_POLL_ACCEPT | AFD_POLL_CONNECT_FAIL)

NTSTATUS NTAPI NtCancelIoFileEx(HANDLE, PIO_STATUS_BLOCK, PIO_STATUS_BLOCK);
NTSTATUS NTAPI NtQueryIoCompletion(HANDLE, int, PVOID, ULONG, PULONG);

/* The safety net (SPEC.md, "What the model cannot see"): every enabled
 * registration is read again in turn, WATCH_N every WATCH_MS, and reports
 * only a change it finds, never a condition that merely still holds. */
#define WATCH_MS 50
#define WATCH_N 32

/* ---- switches ---------------------------------------------------------- */

enum { TRIGGER_PERSISTENT, TRIGGER_REFUSE };
enum { REMOVE_ALONE, REMOVE_COALESCED };
enum { CLOSED_ENTRY, CLOSED_CALL };
enum { PORT_REFUSE, PORT_IGNORE, PORT_MOVE };
enum { EMPTY_OK, EMPTY_EINVAL };
enum { LEVEL_DEQUEUE, LEVEL_CHANGE };
enum { RESULT_ZERO, RESULT_ONE };
enum { OV_NULL, OV_JUNK };
enum { TIED_ACCEPT, TIED_REFUSE };

static const struct {
    const char *name;
    const char *values[4]; /* the first is the default */
} switchDefs[] = {
    {"trigger", {"persistent", "refuse"}},
    {"remove_packet", {"alone", "coalesced"}},
    {"remove_closed", {"entry", "call"}},
    {"second_port", {"refuse", "ignore", "move"}},
    {"empty_call", {"ok", "einval"}},
    {"level", {"dequeue", "change"}},
    {"result", {"zero", "one"}},
    {"overlapped", {"null", "junk"}},
    {"tied_socket", {"accept", "refuse"}},
};
#define NSWITCH (sizeof switchDefs / sizeof switchDefs[0])
enum { SW_TRIGGER, SW_REMOVE_PACKET, SW_REMOVE_CLOSED, SW_SECOND_PORT, SW_EMPTY_CALL, SW_LEVEL, SW_RESULT, SW_OVERLAPPED, SW_TIED_SOCKET };

static int sw[NSWITCH];
static char switchError[200];

/* parseSwitches reads SOCKSTATE_PSN_MODEL; a bad entry is kept in switchError. */
static void parseSwitches(void)
{
    char buf[512];
    DWORD n = GetEnvironmentVariableA("SOCKSTATE_PSN_MODEL", buf, sizeof buf);
    if (n == 0 || n >= sizeof buf)
        return;
    for (char *tok = strtok(buf, ", "); tok != NULL; tok = strtok(NULL, ", ")) {
        char *eq = strchr(tok, '=');
        size_t i, v;
        if (eq == NULL) {
            snprintf(switchError, sizeof switchError, "switch %s has no value", tok);
            return;
        }
        *eq = 0;
        for (i = 0; i < NSWITCH && strcmp(switchDefs[i].name, tok) != 0; i++)
            ;
        if (i == NSWITCH) {
            snprintf(switchError, sizeof switchError, "unknown switch %s", tok);
            return;
        }
        for (v = 0; v < 4 && switchDefs[i].values[v] != NULL && strcmp(switchDefs[i].values[v], eq + 1) != 0; v++)
            ;
        if (v == 4 || switchDefs[i].values[v] == NULL) {
            snprintf(switchError, sizeof switchError, "switch %s has no value %s", tok, eq + 1);
            return;
        }
        sw[i] = (int)v;
    }
}

/* ---- registrations ----------------------------------------------------- */

/* A connection's two addresses: a registered socket's (own, peer) is the
 * sending peer's (peer, own). */
typedef struct {
    struct sockaddr_storage a, b;
    int alen, blen;
} pair;

typedef struct reg {
    SOCKET sock;
    HANDLE base;        /* SIO_BASE_HANDLE: what AFD knows */
    HANDLE port;
    ULONG_PTR key;      /* fixed when the registration is created */
    UINT32 id;
    int type;           /* SOCK_STREAM, SOCK_DGRAM, ... */
    BOOL listening;     /* SO_ACCEPTCONN, or a listen seen since */
    ULONG want;         /* SOCK_NOTIFY_EVENT_* bits it reports: filter, ERR */
    BOOL edge, oneshot, enabled;
    ULONG afd;          /* AFD conditions known to hold */
    ULONG queued;       /* its packets in the port, not yet dequeued */
    ULONG queuedBits;   /* the conditions in them */
    BOOL recheck;       /* level=dequeue: a packet left; the next dequeue reports what holds */
    int receiving;      /* the caller's receives on it under way (seen) */
    size_t slot;        /* index in table */
    pair ends;          /* a connected stream socket's own address and its peer's */
    BOOL byEnds;        /* in byAddr */
    struct reg *nextSock, *nextKey, *nextAddr;
    /* the AFD poll out for this registration */
    IO_STATUS_BLOCK iosb;
    AFD_POLL_INFO poll;
    BOOL inflight, dead;
    ULONG inflightMask, seenRise; /* rises seen since it went out: not news when it completes */
} reg;

#define NBUCKET 4096u
static reg *bySock[NBUCKET], *byKey[NBUCKET], *byAddr[NBUCKET];
static reg **table; /* every live registration, for the safety net */
static size_t nregs, capregs;
static reg **rechecks; /* level=dequeue: registrations whose packet left */
static size_t nrechecks, caprechecks;
static UINT32 nextID;

/* Handles tied to a completion port (NtSetInformationFile), for the
 * switch tied_socket. */
typedef struct tie {
    HANDLE h;
    struct tie *next;
} tie;
static tie *ties[NBUCKET];
static volatile LONG nties;

/* The peer address of each stream socket that sent, learnt at its first
 * send, for the fast path of a loopback arrival (afterSocketCall). */
typedef struct peer {
    HANDLE h;
    pair ends; /* (its peer's address, its own) */
    struct peer *next;
} peer;
static peer *peers[NBUCKET];
static size_t npeers;

/* forgetPeers empties the peer cache once the model watches nothing (no
 * registration, no tie: watching()). The hooks then no longer tell it of
 * closes, so a cached socket could be closed unseen and its handle value
 * go to a new socket (Windows and Wine hand a value out again at once):
 * the stale entry would name the old connection, the new socket's sends
 * would find no registered peer, and the peer's edge would wait for the
 * AFD poll's completion, after the send had returned. arrived() caches
 * nothing while no registration exists. */
static void forgetPeers(void)
{
    if (npeers == 0 || watching())
        return;
    for (size_t i = 0; i < NBUCKET; i++) {
        while (peers[i] != NULL) {
            peer *p = peers[i];
            peers[i] = p->next;
            free(p);
        }
    }
    npeers = 0;
}

static CRITICAL_SECTION lk;
static HANDLE mport; /* the model's own port: AFD completions and wake-ups */
static HANDLE adev;  /* \Device\Afd, tied to mport */
static HANDLE sdev;  /* \Device\Afd for zero-timeout reads of the state */
static HANDLE sevent;
static DWORD initError;

#define KEY_AFD 1

static unsigned hashOf(ULONG_PTR a, ULONG_PTR b)
{
    ULONG_PTR x = a * 0x9E3779B1u ^ b * 0x85EBCA77u;
    return (unsigned)(x ^ x >> 13 ^ x >> 23) % NBUCKET;
}

static unsigned hashPair(const pair *p)
{
    ULONG_PTR x = 0;
    for (int i = 0; i < p->alen; i++)
        x = x * 131 + ((const BYTE *)&p->a)[i];
    for (int i = 0; i < p->blen; i++)
        x = x * 131 + ((const BYTE *)&p->b)[i];
    return hashOf(x, 0);
}

static BOOL samePair(const pair *p, const pair *q)
{
    return p->alen == q->alen && p->blen == q->blen &&
           memcmp(&p->a, &q->a, (size_t)p->alen) == 0 && memcmp(&p->b, &q->b, (size_t)p->blen) == 0;
}

/* endsOf reads the addresses of a connected socket: (own, peer), or with
 * swap (peer, own); FALSE if it has no peer. */
static BOOL endsOf(SOCKET s, pair *p, BOOL swap)
{
    struct sockaddr_storage *own = swap ? &p->b : &p->a, *other = swap ? &p->a : &p->b;
    int *ownLen = swap ? &p->blen : &p->alen, *otherLen = swap ? &p->alen : &p->blen;
    memset(p, 0, sizeof *p);
    *ownLen = *otherLen = sizeof p->a;
    return getsockname(s, (struct sockaddr *)own, ownLen) == 0 && getpeername(s, (struct sockaddr *)other, otherLen) == 0;
}

static reg *findPair(const pair *p)
{
    reg *r = byAddr[hashPair(p)];
    while (r != NULL && !samePair(&r->ends, p))
        r = r->nextAddr;
    return r;
}

/* lock and unlock guard every table; the model's own calls on a thread
 * that holds the lock pass the hooks by. */
static void lock(void)
{
    EnterCriticalSection(&lk);
    setBusy(TRUE);
}

static void unlock(void)
{
    setBusy(FALSE);
    LeaveCriticalSection(&lk);
}

static reg *findSock(SOCKET s)
{
    reg *r = bySock[hashOf(s, 0)];
    while (r != NULL && r->sock != s)
        r = r->nextSock;
    return r;
}

static void linkKey(reg *r)
{
    reg **head = &byKey[hashOf((ULONG_PTR)r->port, r->key)];
    r->nextKey = *head;
    *head = r;
}

/* unlink_ takes r out of the chain at head, linked through the field at
 * offset next (offsetof(reg, nextSock), ...). */
static void unlink_(reg **head, reg *r, size_t next)
{
#define NEXT(x) (*(reg **)((char *)(x) + next))
    for (reg **p = head; *p != NULL; p = &NEXT(*p)) {
        if (*p == r) {
            *p = NEXT(r);
            return;
        }
    }
#undef NEXT
}

static reg *add(SOCKET s)
{
    if (nregs == capregs) {
        size_t cap = capregs ? 2 * capregs : 64;
        reg **t = realloc(table, cap * sizeof *t);
        if (t == NULL)
            return NULL;
        table = t;
        capregs = cap;
    }
    reg *r = calloc(1, sizeof *r);
    if (r == NULL)
        return NULL;
    r->sock = s;
    r->slot = nregs;
    table[nregs++] = r;
    reg **head = &bySock[hashOf(s, 0)];
    r->nextSock = *head;
    *head = r;
    return r;
}

static void dropRecheck(reg *r)
{
    if (!r->recheck)
        return;
    r->recheck = FALSE;
    for (size_t i = 0; i < nrechecks; i++) {
        if (rechecks[i] == r) {
            rechecks[i] = rechecks[--nrechecks];
            return;
        }
    }
}

/* kill takes r out of the tables; its memory goes once no poll is out. */
static void kill(reg *r)
{
    table[r->slot] = table[--nregs];
    table[r->slot]->slot = r->slot;
    unlink_(&bySock[hashOf(r->sock, 0)], r, offsetof(reg, nextSock));
    unlink_(&byKey[hashOf((ULONG_PTR)r->port, r->key)], r, offsetof(reg, nextKey));
    if (r->byEnds)
        unlink_(&byAddr[hashPair(&r->ends)], r, offsetof(reg, nextAddr));
    dropRecheck(r);
    forgetPeers();
    r->dead = TRUE;
    if (r->inflight) {
        IO_STATUS_BLOCK io;
        NtCancelIoFileEx(adev, &r->iosb, &io);
        return;
    }
    free(r);
}

static ULONG toNotify(ULONG afd)
{
    ULONG ev = 0;
    if (afd & (AFD_POLL_RECEIVE | AFD_POLL_ACCEPT | AFD_POLL_DISCONNECT))
        ev |= NE_IN; /* end of stream reads as 0 bytes */
    if ((afd & AFD_POLL_SEND) && !(afd & AFD_POLL_CONNECT_FAIL))
        ev |= NE_OUT; /* a failed connect is ERR without OUT */
    if (afd & (AFD_POLL_DISCONNECT | AFD_POLL_ABORT))
        ev |= NE_HANGUP;
    if (afd & (AFD_POLL_ABORT | AFD_POLL_CONNECT_FAIL))
        ev |= NE_ERR;
    return ev;
}

/* toAFD gives the AFD conditions behind notification bits ev on r's
 * socket: only those that can hold on a socket of its kind. ACCEPT holds
 * only on a listening socket, RECEIVE and DISCONNECT never on one, and a
 * datagram socket has no DISCONNECT (B21: UDP has no HANGUP). Asking for
 * more changes no answer, but Wine's server watches the host socket for
 * POLLIN on behalf of a poll that waits for ACCEPT (any socket) or
 * DISCONNECT (a stream), and while data is unread that watch fires without
 * pause: one such socket keeps wineserver busy, ten thousand stall it
 * (Wine's server/sock.c, poll_flags_from_afd). */
static ULONG toAFD(const reg *r, ULONG ev)
{
    ULONG afd = 0;
    if (ev & NE_IN)
        afd |= AFD_POLL_RECEIVE | AFD_POLL_ACCEPT | AFD_POLL_DISCONNECT;
    if (ev & NE_OUT)
        afd |= AFD_POLL_SEND;
    if (ev & NE_HANGUP)
        afd |= AFD_POLL_DISCONNECT | AFD_POLL_ABORT;
    if (ev & NE_ERR)
        afd |= AFD_POLL_ABORT | AFD_POLL_CONNECT_FAIL;
    if (r->listening)
        afd &= ~(AFD_POLL_RECEIVE | AFD_POLL_DISCONNECT);
    else
        afd &= ~AFD_POLL_ACCEPT;
    if (r->type != SOCK_STREAM)
        afd &= ~AFD_POLL_DISCONNECT;
    return afd;
}

/* isSocket reports whether s is an open socket. */
static BOOL isSocket(SOCKET s)
{
    int type, len = sizeof type;
    return s != INVALID_SOCKET && getsockopt(s, SOL_SOCKET, SO_TYPE, (char *)&type, &len) == 0;
}

/* state reads the socket's AFD conditions now into *afd; FALSE if it is
 * gone. */
static BOOL state(reg *r, ULONG *afd)
{
    AFD_POLL_INFO info = {0};
    IO_STATUS_BLOCK iosb = {0};
    info.Timeout.QuadPart = 0;
    info.NumberOfHandles = 1;
    info.Handle = r->base;
    info.Events = AFD_ALL;
    /* A request that completed at once signalled the event too: clear it,
     * or the next wait would end before its request and read the input
     * back as the answer. */
    ResetEvent(sevent);
    iosb.Status = STATUS_PENDING_;
    NTSTATUS s = modelIoctl(sdev, sevent, NULL, NULL, &iosb, IOCTL_AFD_POLL, &info, sizeof info, &info, sizeof info);
    if (s == STATUS_PENDING_) {
        /* Wine may signal the event before the status is written: wait
         * in short steps until it is, never for a signal that came. */
        while (iosb.Status == STATUS_PENDING_)
            WaitForSingleObject(sevent, 1);
        s = iosb.Status;
    }
    if (s < 0)
        return FALSE;
    *afd = info.NumberOfHandles ? info.Events : 0;
    return !(*afd & AFD_POLL_LOCAL_CLOSE);
}

static ULONG_PTR overlappedValue(reg *r)
{
    /* "junk": small odd numbers, which are no address. */
    return sw[SW_OVERLAPPED] == OV_JUNK ? 7 + 16 * (ULONG_PTR)(r->id % 250) : 0;
}

static void post(reg *r, ULONG bits)
{
    if (PostQueuedCompletionStatus(r->port, bits, r->key, (LPOVERLAPPED)overlappedValue(r))) {
        r->queued++;
        r->queuedBits |= bits;
    }
}

/* report posts bits if the registration is enabled: a level condition
 * already in a queued packet is not posted again (one packet at a time,
 * later readiness coalesced into it); a one-shot one is disabled. */
static void report(reg *r, ULONG bits)
{
    if (!r->enabled)
        return;
    if (!r->edge)
        bits &= ~r->queuedBits;
    if (bits == 0)
        return;
    post(r, bits);
    if (r->oneshot)
        r->enabled = FALSE;
}

/* arm keeps an AFD poll out for what can rise: the conditions that do not
 * hold, and the socket's close. */
static void arm(reg *r)
{
    ULONG mask = AFD_POLL_LOCAL_CLOSE | (toAFD(r, r->want) & ~r->afd);
    /* Past the peer's FIN a stream receives nothing more: RECEIVE cannot
     * rise. Asking for it changes no answer, but Wine's server watches
     * the host socket for POLLIN on its behalf, which an end of stream
     * keeps firing (see toAFD): each such socket would keep the server
     * busy until it is closed. */
    if (r->type == SOCK_STREAM && (r->afd & AFD_POLL_DISCONNECT))
        mask &= ~AFD_POLL_RECEIVE;
    if (r->inflight) {
        if (r->inflightMask != mask) {
            IO_STATUS_BLOCK io;
            NtCancelIoFileEx(adev, &r->iosb, &io); /* armed again when it comes back */
        }
        return;
    }
    memset(&r->poll, 0, sizeof r->poll);
    memset(&r->iosb, 0, sizeof r->iosb);
    r->poll.Timeout.QuadPart = 0x7FFFFFFFFFFFFFFFLL;
    r->poll.NumberOfHandles = 1;
    r->poll.Handle = r->base;
    r->poll.Events = mask;
    r->seenRise = 0;
    NTSTATUS s = modelIoctl(adev, NULL, NULL, r, &r->iosb, IOCTL_AFD_POLL, &r->poll, sizeof r->poll, &r->poll, sizeof r->poll);
    if (s >= 0) {
        r->inflight = TRUE;
        r->inflightMask = mask;
    }
}

/*
 * seen gives the conditions a read of r's state found, afd, as the model
 * takes them. While a caller's receive on the socket is under way, Wine's
 * server hides its data from every poll (a receive is queued on the socket
 * until it returns: server/sock.c, recv_socket and sock_dispatch_asyncs),
 * so such a read cannot tell that RECEIVE fell; the receive's return
 * says whether it did (afterSocketCall). Taken as fallen, a RECEIVE that
 * held all along would rise at the next read: an edge with no arrival,
 * while data is unread (B26 says none).
 */
static ULONG seen(const reg *r, ULONG afd)
{
    return r->receiving > 0 ? afd | (r->afd & AFD_POLL_RECEIVE) : afd;
}

/*
 * update takes the conditions that hold now, afd, and reports what the
 * rules owe: edge, what rose (or is known to have risen, rose); level,
 * what holds once something rose, or when again is set (level=change:
 * the caller's I/O; level=dequeue: a dequeue after a dequeued packet).
 * Then it re-arms the AFD poll.
 */
static void update(reg *r, ULONG afd, ULONG rose, BOOL again)
{
    afd = seen(r, afd);
    ULONG risen = afd & ~r->afd;
    r->seenRise |= risen;
    rose = (toNotify(risen) | rose) & r->want;
    r->afd = afd;
    if (r->edge)
        report(r, rose);
    else if (rose || again)
        report(r, (toNotify(afd) & r->want) | rose);
    arm(r);
}

/* refresh reads the socket and updates r; FALSE if the socket is gone,
 * which removes the registration without a packet. */
static BOOL refresh(reg *r, ULONG rose, BOOL again)
{
    ULONG afd;
    if (!state(r, &afd)) {
        kill(r);
        return FALSE;
    }
    update(r, afd, rose, again);
    return TRUE;
}

static void completed(OVERLAPPED_ENTRY *e)
{
    if (e->lpCompletionKey != KEY_AFD)
        return;
    reg *r = (reg *)e->lpOverlapped;
    r->inflight = FALSE;
    if (r->dead) {
        free(r);
        return;
    }
    ULONG got = r->iosb.Status >= 0 && r->poll.NumberOfHandles ? r->poll.Events & r->inflightMask : 0;
    if (got & AFD_POLL_LOCAL_CLOSE) {
        kill(r); /* closed without closesocket's NtClose seen: removed, no packet */
        return;
    }
    /* What the poll saw rise, unless a read of the state saw it first. */
    refresh(r, toNotify(got & ~r->seenRise), FALSE);
}

/* drain handles the model's own completions that have arrived. */
static void drain(void)
{
    OVERLAPPED_ENTRY ents[64];
    ULONG n;
    while (GetQueuedCompletionStatusEx(mport, ents, 64, &n, 0, FALSE))
        for (ULONG i = 0; i < n; i++)
            completed(&ents[i]);
}

static DWORD WINAPI worker(LPVOID unused)
{
    OVERLAPPED_ENTRY ents[64];
    ULONG n;
    size_t next = 0;
    ULONGLONG watchAt = GetTickCount64() + WATCH_MS;
    (void)unused;
    setBusy(TRUE); /* the model's own thread: its dequeues are no caller's */
    for (;;) {
        ULONGLONG now = GetTickCount64();
        BOOL ok = GetQueuedCompletionStatusEx(mport, ents, 64, &n, now < watchAt ? (DWORD)(watchAt - now) : 0, FALSE);
        /* The lock for one completion or one read at a time: the
         * caller's socket calls wait for the model's work on their
         * every send, and would otherwise wait for a whole batch. */
        for (ULONG i = 0; ok && i < n; i++) {
            lock();
            completed(&ents[i]);
            unlock();
        }
        /* The safety net on its clock, whatever the completions do: run
         * after every batch, it made each completion 32 reads of state. */
        if (GetTickCount64() >= watchAt) {
            for (size_t k = 0; k < WATCH_N; k++) {
                lock();
                if (k < nregs) {
                    reg *r = table[next++ % nregs];
                    if (r->enabled)
                        refresh(r, 0, FALSE);
                }
                unlock();
            }
            watchAt = GetTickCount64() + WATCH_MS;
        }
    }
    return 0;
}

/* ---- what the hooks tell the model (hooks.c) --------------------------- */

/* The caller's calls that change a condition. Wine issues its own codes
 * (include/wine/afd.h, function numbers 200 and up); Windows issues
 * afd.sys's (function 0x800 + AFD_RECEIVE and so on). */
static BOOL codeIs(ULONG code, ULONG wine, ULONG native1, ULONG native2)
{
    ULONG fn = (code >> 2) & 0xFFF, dev = code >> 16;
    return (dev == 0x12 /* FILE_DEVICE_NETWORK */ && fn == wine) || (dev == 1 && (fn == native1 || fn == native2));
}
static BOOL isReceive(ULONG code) { return codeIs(code, 205, 0x805, 0x806); } /* RECVMSG; RECEIVE, RECEIVE_DATAGRAM */
static BOOL isSend(ULONG code) { return codeIs(code, 206, 0x807, 0x808) || codeIs(code, 207, 0, 0); } /* SENDMSG, TRANSMIT; SEND, SEND_DATAGRAM */
static BOOL isAccept(ULONG code) { return codeIs(code, 201, 0x804, 0x820) || codeIs(code, 202, 0, 0); } /* ACCEPT, ACCEPT_INTO; ACCEPT, SUPER_ACCEPT */
static BOOL isListen(ULONG code) { return codeIs(code, 0, 0x802, 0); } /* Wine and Windows alike: START_LISTEN */

BOOL watching(void) { return nregs > 0 || nties > 0; }

BOOL beforeSocketCall(HANDLE h, ULONG code, callNote *note)
{
    BOOL mine = isSend(code); /* any socket's: its peer may be registered */
    note->code = code;
    note->before = -1;
    note->id = 0;
    if (!isReceive(code) && !isSend(code) && !isAccept(code) && !isListen(code))
        return FALSE;
    lock();
    reg *r = findSock((SOCKET)h);
    if (r != NULL) {
        mine = TRUE;
        if (isReceive(code)) {
            r->receiving++;
            note->id = r->id;
        }
        u_long n;
        /* A stream read that takes all there was may empty the buffer. */
        if (isReceive(code) && r->type == SOCK_STREAM && (r->afd & AFD_POLL_RECEIVE) && ioctlsocket(r->sock, FIONREAD, &n) == 0)
            note->before = (LONG)n;
    }
    unlock();
    return mine;
}

/* peerOf returns the cached (peer, own) addresses of stream socket h, read
 * at its first send; NULL if it has no peer. That a socket is no stream is
 * cached too (an entry with no ends): a datagram sender's every send would
 * otherwise ask for its type again. */
static const pair *peerOf(HANDLE h)
{
    peer **head = &peers[hashOf((ULONG_PTR)h, 0)], *p = *head;
    while (p != NULL && p->h != h)
        p = p->next;
    if (p != NULL)
        return p->ends.alen ? &p->ends : NULL;
    int type = 0, len = sizeof type;
    if (getsockopt((SOCKET)h, SOL_SOCKET, SO_TYPE, (char *)&type, &len) != 0 || (p = malloc(sizeof *p)) == NULL)
        return NULL;
    if (type != SOCK_STREAM)
        memset(&p->ends, 0, sizeof p->ends);
    else if (!endsOf((SOCKET)h, &p->ends, TRUE)) {
        free(p); /* not connected yet: asked again at its next send */
        return NULL;
    }
    p->h = h;
    p->next = *head;
    *head = p;
    npeers++;
    return p->ends.alen ? &p->ends : NULL;
}

/* arrived: h sent data. If its peer is a registered socket of this process
 * that waits for data (a loopback connection), the data is in the peer's
 * buffer now: read the peer's state at once, as afd.sys learns of an
 * arrival when it happens, rather than when the model's AFD poll
 * completes on its worker thread. */
static void arrived(HANDLE h)
{
    if (nregs == 0)
        return; /* no peer to find, and nothing cached unwatched (forgetPeers) */
    const pair *ends = peerOf(h);
    reg *r = ends != NULL ? findPair(ends) : NULL;
    if (r != NULL && r->enabled && (r->want & NE_IN) && !(r->afd & AFD_POLL_RECEIVE))
        refresh(r, 0, FALSE);
}

void afterSocketCall(HANDLE h, const callNote *note, NTSTATUS status, ULONG_PTR information)
{
    if (status == STATUS_PENDING_ && note->id == 0)
        return; /* under way: the model learns its effect from the poll */
    lock();
    reg *r = findSock((SOCKET)h);
    if (r != NULL && note->id == r->id && r->receiving > 0)
        r->receiving--; /* over, or pending: then the data is that receive's */
    if (status == STATUS_PENDING_) {
        unlock();
        return;
    }
    if (isSend(note->code) && status >= 0 && information > 0)
        arrived(h);
    r = findSock((SOCKET)h);
    if (r != NULL) {
        BOOL wouldBlock = status == STATUS_DEVICE_NOT_READY_;
        BOOL again = sw[SW_LEVEL] == LEVEL_CHANGE && !r->edge && status >= 0; /* a re-enabling call */
        ULONG fell = 0;
        u_long left;
        if (isReceive(note->code)) {
            /* Empty at that moment: the read would block, or it took all
             * there was and nothing is left. A read that took all there
             * was while more is there already cannot tell a drain and a
             * refill from a buffer that never emptied: the model takes it
             * as not drained (SPEC.md, "What the model cannot see"). */
            if (wouldBlock || (status >= 0 && note->before > 0 && information >= (ULONG_PTR)note->before &&
                               ioctlsocket(r->sock, FIONREAD, &left) == 0 && left == 0))
                fell = AFD_POLL_RECEIVE;
            else if (r->type != SOCK_STREAM && status >= 0)
                again = TRUE; /* a datagram read: whether more wait, only a read of the state says */
        } else if (isSend(note->code) && wouldBlock) {
            fell = AFD_POLL_SEND;
        } else if (isAccept(note->code)) {
            fell = wouldBlock ? AFD_POLL_ACCEPT : 0;
            again = again || status >= 0; /* whether more connections wait, only a read says */
        } else if (isListen(note->code) && status >= 0 && !r->listening) {
            r->listening = TRUE;
            arm(r); /* for ACCEPT now, and no longer for what a listener never has */
        }
        if (fell) {
            /* Anything there now came after: a rise. The poll, armed
             * again for it, says so at once. */
            r->afd &= ~fell;
            arm(r);
        }
        if (again)
            refresh(r, 0, sw[SW_LEVEL] == LEVEL_CHANGE);
    }
    unlock();
}

void beforeDequeue(HANDLE port)
{
    if (sw[SW_LEVEL] != LEVEL_DEQUEUE || nrechecks == 0)
        return;
    lock();
    for (size_t i = 0; i < nrechecks;) {
        reg *r = rechecks[i];
        if (r->port != port) {
            i++;
            continue;
        }
        rechecks[i] = rechecks[--nrechecks];
        r->recheck = FALSE;
        refresh(r, 0, TRUE); /* reported again if it still holds */
    }
    unlock();
}

void dequeued(HANDLE port, ULONG_PTR key, ULONG_PTR apc)
{
    lock();
    reg *r = byKey[hashOf((ULONG_PTR)port, key)];
    while (r != NULL && !(r->port == port && r->key == key && r->queued > 0 && overlappedValue(r) == apc))
        r = r->nextKey;
    if (r != NULL && --r->queued == 0) {
        r->queuedBits = 0;
        if (sw[SW_LEVEL] == LEVEL_DEQUEUE && !r->edge && r->enabled && !r->recheck) {
            if (nrechecks == caprechecks) {
                size_t cap = caprechecks ? 2 * caprechecks : 64;
                reg **t = realloc(rechecks, cap * sizeof *t);
                if (t != NULL) {
                    rechecks = t;
                    caprechecks = cap;
                }
            }
            if (nrechecks < caprechecks) {
                rechecks[nrechecks++] = r;
                r->recheck = TRUE;
            }
        }
    }
    unlock();
}

void closing(HANDLE h)
{
    lock();
    for (peer **p = &peers[hashOf((ULONG_PTR)h, 0)]; *p != NULL; p = &(*p)->next) {
        if ((*p)->h == h) {
            peer *dead = *p;
            *p = dead->next;
            free(dead);
            npeers--;
            break;
        }
    }
    tie **p = &ties[hashOf((ULONG_PTR)h, 0)];
    while (*p != NULL && (*p)->h != h)
        p = &(*p)->next;
    if (*p != NULL) {
        tie *t = *p;
        *p = t->next;
        free(t);
        InterlockedDecrement(&nties);
    }
    reg *r = findSock((SOCKET)h);
    if (r != NULL)
        kill(r); /* closesocket: removed silently, no packet (B20) */
    forgetPeers(); /* the last tie may have gone */
    unlock();
}

void associated(HANDLE h)
{
    tie *t = malloc(sizeof *t);
    if (t == NULL)
        return;
    lock();
    t->h = h;
    t->next = ties[hashOf((ULONG_PTR)h, 0)];
    ties[hashOf((ULONG_PTR)h, 0)] = t;
    InterlockedIncrement(&nties);
    unlock();
}

static BOOL tied(HANDLE h)
{
    tie *t = ties[hashOf((ULONG_PTR)h, 0)];
    while (t != NULL && t->h != h)
        t = t->next;
    return t != NULL;
}

/* ---- set-up -------------------------------------------------------------- */

static HANDLE openAFD(void)
{
    static WCHAR name[] = L"\\Device\\Afd\\psnmodel";
    UNICODE_STRING us = {sizeof name - sizeof(WCHAR), sizeof name, name};
    OBJECT_ATTRIBUTES oa = {0};
    oa.Length = sizeof oa;
    oa.ObjectName = &us;
    IO_STATUS_BLOCK iosb;
    HANDLE h;
    if (NtCreateFile(&h, SYNCHRONIZE, &oa, &iosb, NULL, 0, FILE_SHARE_READ | FILE_SHARE_WRITE, FILE_OPEN, 0, NULL, 0) < 0)
        return NULL;
    return h;
}

static BOOL CALLBACK initOnce(PINIT_ONCE once, PVOID p, PVOID *ctx)
{
    WSADATA wsa;
    (void)once, (void)p, (void)ctx;
    parseSwitches();
    InitializeCriticalSection(&lk);
    if (WSAStartup(MAKEWORD(2, 2), &wsa) != 0 ||
        (mport = CreateIoCompletionPort(INVALID_HANDLE_VALUE, NULL, 0, 1)) == NULL ||
        (adev = openAFD()) == NULL || (sdev = openAFD()) == NULL ||
        CreateIoCompletionPort(adev, mport, KEY_AFD, 0) == NULL ||
        (sevent = CreateEventA(NULL, FALSE, FALSE, NULL)) == NULL) {
        initError = WSASYSCALLFAILURE;
        return TRUE;
    }
    if ((initError = installHooks()) != 0)
        return TRUE;
    HANDLE t = CreateThread(NULL, 0, worker, NULL, 0, NULL);
    if (t == NULL)
        initError = WSASYSCALLFAILURE;
    else
        CloseHandle(t);
    return TRUE;
}

static INIT_ONCE once = INIT_ONCE_STATIC_INIT;

static DWORD init(void)
{
    InitOnceExecuteOnce(&once, initOnce, NULL, NULL);
    return switchError[0] ? WSAEINVAL : initError;
}

/* ---- the call ---------------------------------------------------------- */

/* triggerOK applies the trigger rules; *t gets the flags in effect. */
static BOOL triggerOK(UINT8 *t)
{
    UINT8 kind = *t & (TR_LEVEL | TR_EDGE), life = *t & (TR_ONESHOT | TR_PERSISTENT);
    if (*t & ~(TR_LEVEL | TR_EDGE | TR_ONESHOT | TR_PERSISTENT))
        return FALSE;
    if (kind != TR_LEVEL && kind != TR_EDGE)
        return FALSE; /* none, or both */
    if (life == (TR_ONESHOT | TR_PERSISTENT))
        return FALSE;
    if (life == 0) {
        if (sw[SW_TRIGGER] == TRIGGER_REFUSE)
            return FALSE;
        *t |= TR_PERSISTENT;
    }
    return TRUE;
}

static DWORD enable(HANDLE port, SOCK_NOTIFY_REGISTRATION *in)
{
    UINT8 t = in->triggerFlags;
    if (in->eventFilter & ~(NE_IN | NE_OUT | NE_HANGUP))
        return WSAEINVAL;
    if (!triggerOK(&t))
        return WSAEINVAL;
    if (!isSocket(in->socket))
        return WSAENOTSOCK;
    reg *r = findSock(in->socket);
    DWORD result = 0;
    if (r != NULL) {
        if (r->port != port) {
            if (sw[SW_SECOND_PORT] == PORT_REFUSE)
                return WSAEINVAL;
            if (sw[SW_SECOND_PORT] == PORT_MOVE) {
                unlink_(&byKey[hashOf((ULONG_PTR)r->port, r->key)], r, offsetof(reg, nextKey));
                dropRecheck(r);
                r->port = port;
                r->queued = r->queuedBits = 0; /* its packets are on the old port */
                linkKey(r);
            }
        }
        if (sw[SW_RESULT] == RESULT_ONE)
            result = 1;
    } else {
        HANDLE base = NULL;
        DWORD n;
        int type = 0, len = sizeof type;
        BOOL listening = FALSE;
        int llen = sizeof listening;
        if (sw[SW_TIED_SOCKET] == TIED_REFUSE && tied((HANDLE)in->socket))
            return WSAEINVAL;
        if (WSAIoctl(in->socket, SIO_BASE_HANDLE_, NULL, 0, &base, sizeof base, &n, NULL, NULL) != 0 ||
            getsockopt(in->socket, SOL_SOCKET, SO_TYPE, (char *)&type, &len) != 0)
            return WSAENOTSOCK;
        if (type == SOCK_STREAM && getsockopt(in->socket, SOL_SOCKET, SO_ACCEPTCONN, (char *)&listening, &llen) != 0)
            listening = FALSE;
        if ((r = add(in->socket)) == NULL)
            return WSAENOBUFS;
        r->base = base;
        r->port = port;
        r->key = (ULONG_PTR)in->completionKey;
        r->id = ++nextID;
        r->type = type;
        r->listening = listening;
        linkKey(r);
        if (type == SOCK_STREAM && endsOf(in->socket, &r->ends, FALSE)) {
            reg **head = &byAddr[hashPair(&r->ends)];
            r->nextAddr = *head;
            *head = r;
            r->byEnds = TRUE;
        }
    }
    ULONG afd;
    if (!state(r, &afd)) {
        kill(r);
        return WSAENOTSOCK;
    }
    r->want = in->eventFilter | NE_ERR;
    r->edge = (t & TR_EDGE) != 0;
    r->oneshot = (t & TR_ONESHOT) != 0;
    r->enabled = TRUE;
    /* Level reports what holds at once; edge waits for a rise. */
    r->afd = afd = seen(r, afd);
    update(r, afd, 0, !r->edge);
    return result;
}

static DWORD apply(HANDLE port, SOCK_NOTIFY_REGISTRATION *in)
{
    reg *r;
    switch (in->operation) {
    case OP_NONE:
        return 0;
    case OP_ENABLE:
        return enable(port, in);
    case OP_DISABLE:
        if (!isSocket(in->socket))
            return WSAENOTSOCK;
        if ((r = findSock(in->socket)) != NULL) {
            r->enabled = FALSE;
            dropRecheck(r);
        }
        return 0;
    case OP_REMOVE:
        if (!isSocket(in->socket))
            return WSAENOTSOCK;
        if ((r = findSock(in->socket)) == NULL)
            return WSAEINVAL;
        ULONG bits = NE_REMOVE, afd;
        if (sw[SW_REMOVE_PACKET] == REMOVE_COALESCED && r->enabled && state(r, &afd))
            bits |= toNotify(afd) & r->want;
        post(r, bits);
        kill(r);
        return 0;
    }
    return WSAEINVAL;
}

/* portDepth returns how many packets wait on port, or -1 if it is no port. */
static LONG portDepth(HANDLE port)
{
    LONG depth = -1;
    ULONG len;
    if (NtQueryIoCompletion(port, 0, &depth, sizeof depth, &len) < 0)
        return -1;
    return depth;
}

DWORD WINAPI ProcessSocketNotifications(HANDLE completionPort, UINT32 registrationCount,
                                        SOCK_NOTIFY_REGISTRATION *registrationInfos, UINT32 timeoutMs,
                                        ULONG completionCount, OVERLAPPED_ENTRY *completionPortEntries,
                                        UINT32 *receivedEntryCount)
{
    DWORD err = init();
    if (err != 0)
        return err;
    if ((registrationCount && registrationInfos == NULL) ||
        (completionCount && (completionPortEntries == NULL || receivedEntryCount == NULL)))
        return WSAEFAULT;
    if (!completionCount && (completionPortEntries != NULL || receivedEntryCount != NULL || timeoutMs != 0))
        return WSAEINVAL;
    if (!registrationCount && !completionCount)
        return sw[SW_EMPTY_CALL] == EMPTY_OK ? 0 : WSAEINVAL;
    if (portDepth(completionPort) < 0)
        return WSA_INVALID_HANDLE;

    lock();
    drain(); /* readiness that the worker has not handled yet */
    if (sw[SW_REMOVE_CLOSED] == CLOSED_CALL) {
        for (UINT32 i = 0; i < registrationCount; i++) {
            if (registrationInfos[i].operation == OP_REMOVE && !isSocket(registrationInfos[i].socket)) {
                unlock();
                return WSAENOTSOCK; /* the whole call; nothing applied */
            }
        }
    }
    for (UINT32 i = 0; i < registrationCount; i++)
        registrationInfos[i].registrationResult = apply(completionPort, &registrationInfos[i]);
    unlock();

    if (!completionCount)
        return 0;
    /* The dequeue: the hooks see what it takes, as for any caller's. */
    ULONG n = 0;
    if (!GetQueuedCompletionStatusEx(completionPort, completionPortEntries, completionCount, &n, timeoutMs, FALSE)) {
        err = GetLastError();
        *receivedEntryCount = 0;
        return err;
    }
    *receivedEntryCount = n;
    return 0;
}

/* ---- for the tests ----------------------------------------------------- */

/*
 * PsnModelSwitches writes the switches in effect ("trigger=persistent,...")
 * or, if SOCKSTATE_PSN_MODEL is bad or the model could not start, "error:
 * ..." into buf, and returns the length it needs.
 */
UINT32 WINAPI PsnModelSwitches(char *buf, UINT32 len)
{
    char out[512];
    size_t k = 0;
    DWORD err = init();
    if (switchError[0])
        k = snprintf(out, sizeof out, "error: SOCKSTATE_PSN_MODEL: %s", switchError);
    else if (err != 0)
        k = snprintf(out, sizeof out, "error: the model could not start (watching the process's calls: error %lu)", err);
    for (size_t i = 0; err == 0 && i < NSWITCH; i++)
        k += snprintf(out + k, sizeof out - k, "%s%s=%s", i ? "," : "", switchDefs[i].name, switchDefs[i].values[sw[i]]);
    if (buf != NULL && len > 0)
        snprintf(buf, len, "%s", out);
    return (UINT32)k + 1;
}

/* PsnModelRegistrations returns how many registrations the model holds. */
UINT32 WINAPI PsnModelRegistrations(void)
{
    init();
    lock();
    drain();
    UINT32 n = (UINT32)nregs;
    unlock();
    return n;
}
