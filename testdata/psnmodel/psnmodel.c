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
 * How it works: registrations live in a table keyed by socket. The model
 * watches each socket with IOCTL_AFD_POLL requests on a device handle tied
 * to a completion port of its own, served by one worker thread, and samples
 * a socket's state with a zero-timeout AFD poll. It posts notifications to
 * the caller's port with PostQueuedCompletionStatus: the registration's key,
 * the SOCK_NOTIFY_EVENT_* bits as the byte count. The dequeue half of the
 * call is GetQueuedCompletionStatusEx on the caller's port.
 *
 * What nobody has observed is a switch, read from the environment variable
 * SOCKSTATE_PSN_MODEL ("name=value,..."; SPEC.md lists them).
 *
 * Build (scripts/test.sh does): CC -shared -O2 -Wall -Werror -o psnmodel.dll
 *   psnmodel.c psnmodel.def -lws2_32 -lntdll -Wl,--kill-at
 */
#define WIN32_LEAN_AND_MEAN
#include <winsock2.h>
#include <windows.h>
#include <winternl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../socknotify.h"

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

#include "../afd.h"
#define AFD_ALL (AFD_POLL_RECEIVE | AFD_POLL_SEND | AFD_POLL_DISCONNECT | AFD_POLL_ABORT | AFD_POLL_LOCAL_CLOSE | AFD_POLL_ACCEPT | AFD_POLL_CONNECT_FAIL)
#define STATUS_PENDING_ 0x00000103L

NTSTATUS NTAPI NtCancelIoFileEx(HANDLE, PIO_STATUS_BLOCK, PIO_STATUS_BLOCK);
NTSTATUS NTAPI NtQueryIoCompletion(HANDLE, int, PVOID, ULONG, PULONG);

/* Timing (SPEC.md, "What the model cannot see"). */
#define SAMPLE_MS 2       /* how often held conditions are sampled */
#define DEQUEUE_GUESS_MS 2000 /* a level packet not seen dequeued is taken as dequeued */
#define REREPORT_MS 2000  /* a held edge is reported again: late, never lost */
#define WATCH_MS 50       /* every registration is sampled in turn, WATCH_N a time */
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
};
#define NSWITCH (sizeof switchDefs / sizeof switchDefs[0])
enum { SW_TRIGGER, SW_REMOVE_PACKET, SW_REMOVE_CLOSED, SW_SECOND_PORT, SW_EMPTY_CALL, SW_LEVEL, SW_RESULT, SW_OVERLAPPED };

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

/* ident tells sockets apart when a closed socket's handle is reused. */
typedef struct {
    int type;
    int localLen, peerLen; /* 0: unbound, not connected */
    char local[64], peer[64];
} ident;

typedef struct reg {
    SOCKET sock;
    ident id0;
    HANDLE base;       /* SIO_BASE_HANDLE: what AFD knows */
    HANDLE port;
    ULONG_PTR key;     /* fixed when the registration is created */
    ULONG want;        /* SOCK_NOTIFY_EVENT_* bits it reports: filter, ERR */
    BOOL edge, oneshot, enabled;
    UINT32 id;
    ULONG afdNow;      /* AFD events at the last sample */
    ULONG sig;         /* FIONREAD at the last sample: I/O changes it */
    ULONG quiet;       /* held bits not to report until they change */
    DWORD quietSince;
    ULONG pending;     /* level: packets posted and not seen dequeued */
    BOOL enabledSince; /* level: ENABLEd while a packet may still be queued */
    ULONG pendingBits;
    DWORD postedAt;
    ULONG64 lastSeq;   /* the port's count of model packets at its last post */
    /* the AFD poll out for this registration */
    IO_STATUS_BLOCK iosb;
    AFD_POLL_INFO poll;
    BOOL inflight, dead;
    ULONG inflightMask;
} reg;

/*
 * A port the model posts to. A port hands out packets in the order they
 * were queued, so of the posted packets, at least posted - depth have been
 * dequeued (exactly that many when no one else posts to the port): the
 * oldest ones.
 */
typedef struct {
    HANDLE h;
    ULONG64 posted;  /* packets the model posted */
    ULONG64 gone;    /* of those, how many are known dequeued */
} portInfo;

static portInfo *ports;
static size_t nports, capports;

static CRITICAL_SECTION lk;
static reg **table;
static size_t nregs, capregs;
static UINT32 nextID;
static HANDLE mport;   /* the model's own port: AFD completions and wake-ups */
static HANDLE adev;    /* \Device\Afd, tied to mport */
static HANDLE sdev;    /* \Device\Afd for zero-timeout samples */
static HANDLE sevent;
static DWORD initError;

#define KEY_AFD 1
#define KEY_WAKE 2

static reg *find(SOCKET s)
{
    for (size_t i = 0; i < nregs; i++)
        if (table[i]->sock == s)
            return table[i];
    return NULL;
}

static void identify(SOCKET s, ident *id)
{
    int len = sizeof id->type;
    memset(id, 0, sizeof *id);
    getsockopt(s, SOL_SOCKET, SO_TYPE, (char *)&id->type, &len);
    id->localLen = sizeof id->local;
    if (getsockname(s, (struct sockaddr *)id->local, &id->localLen) != 0)
        id->localLen = 0;
    id->peerLen = sizeof id->peer;
    if (getpeername(s, (struct sockaddr *)id->peer, &id->peerLen) != 0)
        id->peerLen = 0;
}

/*
 * sameSocket reports whether r's socket is still the one registered, not
 * another that reuses its handle: its type is the same and an address it
 * had has not changed (binding and connecting add one).
 */
static BOOL sameSocket(reg *r)
{
    ident now;
    identify(r->sock, &now);
    if (now.type != r->id0.type ||
        (r->id0.localLen && (now.localLen != r->id0.localLen || memcmp(now.local, r->id0.local, now.localLen) != 0)) ||
        (r->id0.peerLen && now.peerLen && (now.peerLen != r->id0.peerLen || memcmp(now.peer, r->id0.peer, now.peerLen) != 0)))
        return FALSE;
    if (now.localLen)
        memcpy(r->id0.local, now.local, r->id0.localLen = now.localLen);
    if (now.peerLen)
        memcpy(r->id0.peer, now.peer, r->id0.peerLen = now.peerLen);
    return TRUE;
}

static reg *add(void)
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
    if (r != NULL)
        table[nregs++] = r;
    return r;
}

/* forgetPort drops h's counts once no registration posts to it: its
 * handle may be closed and reused for another port. */
static void forgetPort(HANDLE h)
{
    for (size_t i = 0; i < nregs; i++)
        if (table[i]->port == h)
            return;
    for (size_t i = 0; i < nports; i++) {
        if (ports[i].h == h) {
            ports[i] = ports[--nports];
            return;
        }
    }
}

/* kill takes r out of the table; its memory goes once no poll is out. */
static void kill(reg *r)
{
    for (size_t i = 0; i < nregs; i++) {
        if (table[i] == r) {
            table[i] = table[--nregs];
            break;
        }
    }
    r->dead = TRUE;
    forgetPort(r->port);
    if (r->inflight) {
        IO_STATUS_BLOCK io;
        NtCancelIoFileEx(adev, &r->iosb, &io);
        return;
    }
    free(r);
}

/* live finds s's registration; one of a closed socket whose handle is
 * reused is removed silently, as closesocket removed it. */
static reg *live(SOCKET s)
{
    reg *r = find(s);
    if (r != NULL && !sameSocket(r)) {
        kill(r);
        return NULL;
    }
    return r;
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

static ULONG toAFD(ULONG ev)
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
    return afd;
}

/* isSocket reports whether s is an open socket. */
static BOOL isSocket(SOCKET s)
{
    int type, len = sizeof type;
    return s != INVALID_SOCKET && getsockopt(s, SOL_SOCKET, SO_TYPE, (char *)&type, &len) == 0;
}

/* sample reads the socket's AFD state now; FALSE if it is gone. */
static BOOL sample(reg *r)
{
    AFD_POLL_INFO info = {0};
    IO_STATUS_BLOCK iosb = {0};
    u_long nread = 0;
    info.Timeout.QuadPart = 0;
    info.NumberOfHandles = 1;
    info.Handle = r->base;
    info.Events = AFD_ALL;
    /* A request that completed at once signalled the event too: clear it,
     * or the next wait would end before its request and read the input
     * back as the answer. */
    ResetEvent(sevent);
    iosb.Status = STATUS_PENDING_;
    NTSTATUS s = NtDeviceIoControlFile(sdev, sevent, NULL, NULL, &iosb, IOCTL_AFD_POLL, &info, sizeof info, &info, sizeof info);
    if (s == STATUS_PENDING_) {
        /* Wine may signal the event before the status is written: wait
         * in short steps until it is, never for a signal that came. */
        while (iosb.Status == STATUS_PENDING_)
            WaitForSingleObject(sevent, 1);
        s = iosb.Status;
    }
    if (s < 0)
        return FALSE;
    r->afdNow = info.NumberOfHandles ? info.Events : 0;
    if (r->afdNow & AFD_POLL_LOCAL_CLOSE)
        return FALSE;
    if (ioctlsocket(r->sock, FIONREAD, &nread) != 0)
        nread = 0;
    if (nread > r->sig && (r->quiet & NE_IN))
        r->quiet &= ~NE_IN; /* more to read than before: maybe drained and refilled */
    r->sig = nread;
    return TRUE;
}

static ULONG_PTR overlappedValue(reg *r)
{
    /* "junk": small odd numbers, which are no address. */
    return sw[SW_OVERLAPPED] == OV_JUNK ? 7 + 16 * (ULONG_PTR)(r->id % 250) : 0;
}

static portInfo *portOf(HANDLE h)
{
    for (size_t i = 0; i < nports; i++)
        if (ports[i].h == h)
            return &ports[i];
    if (nports == capports) {
        size_t cap = capports ? 2 * capports : 8;
        portInfo *p = realloc(ports, cap * sizeof *p);
        if (p == NULL)
            return NULL;
        ports = p;
        capports = cap;
    }
    ports[nports] = (portInfo){h, 0, 0};
    return &ports[nports++];
}

static void post(reg *r, ULONG bits)
{
    portInfo *p = portOf(r->port);
    if (p != NULL)
        r->lastSeq = ++p->posted;
    PostQueuedCompletionStatus(r->port, bits, r->key, (LPOVERLAPPED)overlappedValue(r));
}

static DWORD workerWait = INFINITE; /* the worker's timeout, set under lk */

/* needTicks makes sure the worker samples every SAMPLE_MS. */
static void needTicks(void)
{
    if (workerWait != SAMPLE_MS) {
        workerWait = SAMPLE_MS;
        PostQueuedCompletionStatus(mport, 0, KEY_WAKE, NULL);
    }
}

/* arm keeps an AFD poll out for what can rise: AFD bits false now. */
static void arm(reg *r)
{
    ULONG mask = AFD_POLL_LOCAL_CLOSE;
    if (r->enabled)
        mask |= toAFD(r->want) & ~r->afdNow;
    if (r->inflight) {
        if (r->inflightMask != mask) {
            IO_STATUS_BLOCK io;
            NtCancelIoFileEx(adev, &r->iosb, &io); /* re-armed when it comes back */
        }
        return;
    }
    memset(&r->poll, 0, sizeof r->poll);
    memset(&r->iosb, 0, sizeof r->iosb);
    r->poll.Timeout.QuadPart = 0x7FFFFFFFFFFFFFFFLL;
    r->poll.NumberOfHandles = 1;
    r->poll.Handle = r->base;
    r->poll.Events = mask;
    NTSTATUS s = NtDeviceIoControlFile(adev, NULL, NULL, r, &r->iosb, IOCTL_AFD_POLL, &r->poll, sizeof r->poll, &r->poll, sizeof r->poll);
    if (s >= 0) {
        r->inflight = TRUE;
        r->inflightMask = mask;
    }
}

/*
 * evaluate samples r and posts what it owes: level, what holds and is not
 * in a packet already; edge, what rose since it was last reported or
 * enabled. Then it re-arms the AFD poll. FALSE if the socket is gone, which
 * removes the registration without a packet.
 */
static BOOL evaluate(reg *r)
{
    if (!sample(r)) {
        kill(r);
        return FALSE;
    }
    ULONG cond = toNotify(r->afdNow) & r->want;
    r->quiet &= cond; /* a fallen condition may rise again */
    if (r->quiet && GetTickCount() - r->quietSince >= REREPORT_MS)
        r->quiet = 0;
    if (r->enabled) {
        ULONG bits = cond & ~r->quiet;
        if (!r->edge)
            bits &= ~r->pendingBits;
        if (bits) {
            post(r, bits);
            needTicks();
            if (r->edge) {
                r->quiet |= bits;
                r->quietSince = GetTickCount();
            } else {
                r->pending++;
                r->pendingBits |= bits;
                r->postedAt = GetTickCount();
            }
            if (r->oneshot)
                r->enabled = FALSE;
        }
    }
    arm(r);
    return TRUE;
}

/* dequeued notes that a level packet of r left the port. */
static void dequeued(reg *r, BOOL all)
{
    if (r->pending == 0)
        return;
    r->pending = all ? 0 : r->pending - 1;
    if (r->pending == 0) {
        /* An ENABLE may have come after the packet left the port: then
         * it asked for a new report (late or duplicated, never lost). */
        if (sw[SW_LEVEL] == LEVEL_CHANGE && !r->enabledSince) {
            r->quiet |= r->pendingBits;
            r->quietSince = GetTickCount();
            needTicks();
        }
        r->pendingBits = 0;
        r->enabledSince = FALSE;
        evaluate(r);
    }
}

/* portDepth returns how many packets wait on port, or -1. */
static LONG portDepth(HANDLE port)
{
    LONG depth = -1;
    ULONG len;
    if (NtQueryIoCompletion(port, 0, &depth, sizeof depth, &len) < 0)
        return -1;
    return depth;
}

/* refresh counts the model's packets that are gone from p's port. */
static void refresh(portInfo *p)
{
    LONG depth = portDepth(p->h);
    if (depth >= 0 && p->posted - p->gone > (ULONG64)depth)
        p->gone = p->posted - depth;
}

/* tick samples what needs sampling; it returns how soon to tick again. */
static DWORD tick(void)
{
    DWORD next = INFINITE;
    for (size_t i = 0; i < nports; i++)
        refresh(&ports[i]);
    for (size_t i = 0; i < nregs;) {
        reg *r = table[i];
        portInfo *p = r->pending ? portOf(r->port) : NULL;
        if (r->pending && ((p != NULL && r->lastSeq <= p->gone) || GetTickCount() - r->postedAt >= DEQUEUE_GUESS_MS))
            dequeued(r, TRUE);
        else if (r->quiet && !evaluate(r))
            continue; /* killed: table[i] is another one now */
        if (i < nregs && table[i] == r && (r->quiet || r->pending))
            next = SAMPLE_MS;
        i++;
    }
    /* A change that the AFD poll out did not report (it is cancelled and
     * submitted again as the conditions change; under load a completion
     * can come late): each enabled registration is sampled in turn, and
     * reports only what the rules above owe. */
    static size_t watchNext;
    for (size_t k = 0; k < WATCH_N && nregs > 0; k++) {
        reg *r = table[watchNext++ % nregs];
        if (r->enabled && !r->quiet && !r->pending)
            evaluate(r);
    }
    return nregs > 0 && next == INFINITE ? WATCH_MS : next;
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
    if (r->iosb.Status >= 0 && r->poll.NumberOfHandles && (r->poll.Events & AFD_POLL_LOCAL_CLOSE)) {
        kill(r); /* closesocket: removed, no packet */
        return;
    }
    evaluate(r);
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
    (void)unused;
    for (;;) {
        EnterCriticalSection(&lk);
        DWORD wait = workerWait;
        LeaveCriticalSection(&lk);
        BOOL ok = GetQueuedCompletionStatusEx(mport, ents, 64, &n, wait, FALSE);
        EnterCriticalSection(&lk);
        for (ULONG i = 0; ok && i < n; i++)
            completed(&ents[i]);
        workerWait = tick();
        LeaveCriticalSection(&lk);
    }
    return 0;
}

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
    reg *r = live(in->socket);
    DWORD result = 0;
    if (r != NULL) {
        if (r->port != port) {
            if (sw[SW_SECOND_PORT] == PORT_REFUSE)
                return WSAEINVAL;
            if (sw[SW_SECOND_PORT] == PORT_MOVE)
                r->port = port;
        }
        if (sw[SW_RESULT] == RESULT_ONE)
            result = 1;
    } else {
        HANDLE base = NULL;
        DWORD n;
        if (WSAIoctl(in->socket, SIO_BASE_HANDLE_, NULL, 0, &base, sizeof base, &n, NULL, NULL) != 0)
            return WSAENOTSOCK;
        if ((r = add()) == NULL)
            return WSAENOBUFS;
        r->sock = in->socket;
        r->base = base;
        r->port = port;
        r->key = (ULONG_PTR)in->completionKey;
        r->id = ++nextID;
        identify(r->sock, &r->id0);
    }
    r->want = in->eventFilter | NE_ERR;
    r->edge = (t & TR_EDGE) != 0;
    r->oneshot = (t & TR_ONESHOT) != 0;
    r->enabled = TRUE;
    if (!sample(r)) {
        kill(r);
        return WSAENOTSOCK;
    }
    /* Level reports what holds at once; edge waits for a change. */
    r->quiet = r->edge ? toNotify(r->afdNow) & r->want : 0;
    r->quietSince = GetTickCount();
    if (r->pending) {
        /* Gone already: this ENABLE came after the dequeue, and asks for
         * a new report now. */
        portInfo *p = portOf(r->port);
        if (p != NULL)
            refresh(p);
        if (p != NULL && r->lastSeq <= p->gone)
            r->pending = r->pendingBits = 0;
    }
    r->enabledSince = r->pending > 0;
    if (r->quiet)
        needTicks();
    evaluate(r);
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
        if ((r = live(in->socket)) != NULL) {
            r->enabled = FALSE;
            arm(r);
        }
        return 0;
    case OP_REMOVE:
        if (!isSocket(in->socket))
            return WSAENOTSOCK;
        if ((r = live(in->socket)) == NULL)
            return WSAEINVAL;
        ULONG bits = NE_REMOVE;
        if (sw[SW_REMOVE_PACKET] == REMOVE_COALESCED && r->enabled && sample(r))
            bits |= toNotify(r->afdNow) & r->want;
        post(r, bits);
        kill(r);
        return 0;
    }
    return WSAEINVAL;
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

    EnterCriticalSection(&lk);
    drain(); /* closes and readiness that the worker has not seen yet */
    if (sw[SW_REMOVE_CLOSED] == CLOSED_CALL) {
        for (UINT32 i = 0; i < registrationCount; i++) {
            if (registrationInfos[i].operation == OP_REMOVE && !isSocket(registrationInfos[i].socket)) {
                LeaveCriticalSection(&lk);
                return WSAENOTSOCK; /* the whole call; nothing applied */
            }
        }
    }
    for (UINT32 i = 0; i < registrationCount; i++)
        registrationInfos[i].registrationResult = apply(completionPort, &registrationInfos[i]);
    LeaveCriticalSection(&lk);

    if (!completionCount)
        return 0;
    ULONG n = 0;
    if (!GetQueuedCompletionStatusEx(completionPort, completionPortEntries, completionCount, &n, timeoutMs, FALSE)) {
        err = GetLastError();
        *receivedEntryCount = 0;
        return err;
    }
    *receivedEntryCount = n;
    EnterCriticalSection(&lk);
    for (ULONG i = 0; i < n; i++) {
        for (size_t j = 0; j < nregs; j++) {
            reg *r = table[j];
            if (r->port == completionPort && r->key == completionPortEntries[i].lpCompletionKey && r->pending) {
                dequeued(r, FALSE);
                break;
            }
        }
    }
    LeaveCriticalSection(&lk);
    return 0;
}

/* ---- for the tests ----------------------------------------------------- */

/*
 * PsnModelSwitches writes the switches in effect ("trigger=persistent,...")
 * or, if SOCKSTATE_PSN_MODEL is bad, "error: ..." into buf, and returns the
 * length it needs.
 */
UINT32 WINAPI PsnModelSwitches(char *buf, UINT32 len)
{
    char out[512];
    size_t k = 0;
    init();
    if (switchError[0])
        k = snprintf(out, sizeof out, "error: SOCKSTATE_PSN_MODEL: %s", switchError);
    for (size_t i = 0; !switchError[0] && i < NSWITCH; i++)
        k += snprintf(out + k, sizeof out - k, "%s%s=%s", i ? "," : "", switchDefs[i].name, switchDefs[i].values[sw[i]]);
    if (buf != NULL && len > 0)
        snprintf(buf, len, "%s", out);
    return (UINT32)k + 1;
}

/* PsnModelRegistrations returns how many registrations the model holds. */
UINT32 WINAPI PsnModelRegistrations(void)
{
    init();
    EnterCriticalSection(&lk);
    drain();
    UINT32 n = (UINT32)nregs;
    LeaveCriticalSection(&lk);
    return n;
}
