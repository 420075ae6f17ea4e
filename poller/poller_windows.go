// Package poller is an epoll-style readiness poller for Go on Windows: add
// sockets with an interest and a trigger mode, then Wait for events, from
// one goroutine or several.
//
// It has two backends. On Windows 10 build 20348 and later (Windows 11,
// Windows Server 2022) it uses ProcessSocketNotifications; elsewhere,
// including Wine, it asks the socket driver (AFD) directly, as wepoll, mio
// and libuv do. New picks the first that this Windows has; WithBackend
// forces one.
//
// The kernel never sees a Go pointer: it is handed slot IDs, and the user's
// key lives in the poller's table, so changing a key costs no system call.
// A slot is reused only after the OS has confirmed that its registration is
// gone, and packets of a deleted registration never reach the caller.
// Close every Poller: on AFD the kernel writes to the poller's memory until
// each poll comes back, and Close waits for that.
//
// Differences between the backends, where the OS leaves no choice:
//   - Edge on AFD is emulated: the socket is polled again after each event,
//     as for Level. A program that drains each event until WSAEWOULDBLOCK,
//     as edge triggering requires, sees the same events on both backends;
//     one that does not is told again on AFD, never less.
//   - A socket closed without Delete: AFD reports the close and the poller
//     frees its slot; ProcessSocketNotifications removes the registration
//     silently, so the slot is freed when the same handle is added again,
//     on Delete, or on Close.
//   - Errors: AFD reports a reset connection and a failed connect as Error;
//     ProcessSocketNotifications reports what the OS calls
//     SOCK_NOTIFY_EVENT_ERR.
//   - Sockets of Go's net package are already tied to the runtime's own
//     completion port; AFD polls them all the same, while
//     ProcessSocketNotifications may refuse them. Use plain Winsock sockets.
package poller

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate"
)

// Interest is what a registration waits for, and, in an Event, what
// happened. Error is always reported, whatever the interest.
type Interest uint8

const (
	Readable Interest = 1 << iota // data, a connection to accept, or end of stream
	Writable                      // room to write, or a connect that completed
	HangUp                        // the peer closed or reset the connection
	Error                         // the socket is in error; receive to learn which
)

func (i Interest) String() string {
	if i == 0 {
		return "0"
	}
	s := ""
	for _, n := range []struct {
		bit  Interest
		name string
	}{{Readable, "Readable"}, {Writable, "Writable"}, {HangUp, "HangUp"}, {Error, "Error"}} {
		if i&n.bit != 0 {
			if s != "" {
				s += "|"
			}
			s += n.name
			i &^= n.bit
		}
	}
	if i != 0 {
		s += fmt.Sprintf("|%#x", uint8(i))
	}
	return s
}

// Mode is a registration's trigger mode.
type Mode uint8

const (
	// Level reports the socket while it is ready, at every Wait.
	Level Mode = iota
	// Edge reports the socket when it becomes ready; drain it until
	// WSAEWOULDBLOCK before waiting again. (Emulated on AFD: see the
	// package doc.)
	Edge
	// OneShotLevel reports once, then disarms until Modify re-arms it. With
	// several goroutines in Wait, each readiness goes to one of them.
	OneShotLevel
	// OneShotEdge is OneShotLevel with an edge trigger.
	OneShotEdge
)

func (m Mode) oneShot() bool { return m == OneShotLevel || m == OneShotEdge }

func (m Mode) String() string {
	switch m {
	case Level:
		return "Level"
	case Edge:
		return "Edge"
	case OneShotLevel:
		return "OneShotLevel"
	case OneShotEdge:
		return "OneShotEdge"
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// Event is one socket's readiness, as Wait reports it.
type Event struct {
	Key    uint64   // the key given to Add or Modify
	Events Interest // what happened: Readable, Writable, HangUp, Error
}

// Backend names the OS mechanism a Poller uses.
type Backend uint8

const (
	// Auto picks SocketNotifications where this Windows has it, else AFD.
	Auto Backend = iota
	// SocketNotifications is ws2_32's ProcessSocketNotifications (Windows
	// 10 build 20348 and later).
	SocketNotifications
	// AFD polls the socket driver directly (every Windows, and Wine).
	AFD
)

func (b Backend) String() string {
	switch b {
	case Auto:
		return "auto"
	case SocketNotifications:
		return "ProcessSocketNotifications"
	case AFD:
		return "AFD"
	}
	return fmt.Sprintf("Backend(%d)", uint8(b))
}

// Option configures New.
type Option func(*Poller)

// WithBackend forces a backend; New fails if this Windows lacks it.
func WithBackend(b Backend) Option { return func(p *Poller) { p.backend = b } }

var (
	// ErrClosed is returned by every method of a closed Poller, and by the
	// Waits that Close interrupts.
	ErrClosed = errors.New("poller: closed")
	// ErrNotRegistered is returned by Modify and Delete for a socket that
	// was not added.
	ErrNotRegistered = errors.New("poller: socket not registered")
)

// Completion keys of the packets the poller posts itself.
const (
	wakeKey  = ^uintptr(0)
	closeKey = ^uintptr(0) - 1
	afdKey   = ^uintptr(0) - 2
)

// Poller is a readiness poller. Its methods may be called from several
// goroutines at once.
type Poller struct {
	backend Backend
	port    windows.Handle
	impl    backend

	mu       sync.Mutex
	slots    []slot
	free     []int32
	bySocket map[windows.Handle]int32
	closed   bool
	waiters  sync.WaitGroup
}

// slot is one registration. The kernel knows it by id(): its index and
// generation.
type slot struct {
	gen      uint32
	state    slotState
	interest Interest
	mode     Mode
	armed    bool // the OS will report it (not a one-shot that fired)
	socket   windows.Handle
	key      uint64
	afd      afdSlot
}

type slotState uint8

const (
	slotFree     slotState = iota
	slotActive             // registered
	slotDeleting           // deleted; waiting for the OS to confirm
)

// IDs: the slot index plus one in the low 24 bits, the generation above.
const (
	indexBits = 24
	maxSlots  = 1<<indexBits - 1
)

func (p *Poller) id(index int32) uintptr {
	return uintptr(index+1) | uintptr(p.slots[index].gen)<<indexBits
}

// lookup returns the slot an ID names, or nil for a stale or foreign ID.
func (p *Poller) lookup(id uintptr) (int32, *slot) {
	index := int32(id&maxSlots) - 1
	if index < 0 || int(index) >= len(p.slots) {
		return -1, nil
	}
	s := &p.slots[index]
	if s.state == slotFree || uintptr(s.gen)<<indexBits != id&^maxSlots {
		return -1, nil
	}
	return index, s
}

// backend is what differs between the OS mechanisms. Its methods run with
// p.mu held.
type backend interface {
	// arm registers (or re-registers) slot i with its interest and mode.
	arm(i int32) error
	// remove starts the removal of slot i; done means that it is freed
	// already, with no packet to wait for.
	remove(i int32) (done bool, err error)
	// translate turns a dequeued packet into an event; ok is false for
	// packets that are the poller's own business. (By value: a pointer
	// through an interface call would move Wait's buffer to the heap.)
	translate(e rawEntry) (ev Event, ok bool)
	// flush re-arms what the last events left to re-arm, before a Wait
	// blocks: after the caller has handled them.
	flush()
	// close releases the backend's handles once no Wait runs.
	close()
}

// New returns a Poller on a new I/O completion port.
func New(opts ...Option) (*Poller, error) {
	p := &Poller{bySocket: make(map[windows.Handle]int32)}
	for _, o := range opts {
		o(p)
	}
	switch p.backend {
	case Auto:
		p.backend = AFD
		if sockstate.Supported() {
			p.backend = SocketNotifications
		}
	case SocketNotifications:
		if err := sockstate.LoadProcessSocketNotifications(); err != nil {
			return nil, err
		}
	case AFD:
	default:
		return nil, fmt.Errorf("poller: unknown backend %v", p.backend)
	}
	port, err := windows.CreateIoCompletionPort(windows.InvalidHandle, 0, 0, 0)
	if err != nil {
		return nil, fmt.Errorf("poller: CreateIoCompletionPort: %w", err)
	}
	p.port = port
	if p.backend == AFD {
		p.impl, err = newAFD(p)
	} else {
		p.impl = &psn{p: p}
	}
	if err != nil {
		windows.CloseHandle(port)
		return nil, err
	}
	return p, nil
}

// Backend reports the backend in use.
func (p *Poller) Backend() Backend { return p.backend }

// Add registers socket s (a Winsock socket) under key with an interest and
// a mode. Adding a socket that is registered already updates that
// registration in place, as Modify does, and looks the socket up anew: the
// handle may have been closed and reused for another socket.
func (p *Poller) Add(s windows.Handle, key uint64, interest Interest, mode Mode) error {
	if err := check(s, interest, mode); err != nil {
		return err
	}
	if err := p.lock(); err != nil {
		return err
	}
	defer p.mu.Unlock()
	if i, ok := p.bySocket[s]; ok {
		sl := &p.slots[i]
		sl.key, sl.interest, sl.mode = key, interest, mode
		sl.afd.base = 0 // AFD: the base handle of whatever socket s is now
		if err := p.impl.arm(i); err != nil {
			p.drop(i)
			return err
		}
		sl.armed = true
		return nil
	}
	i, err := p.alloc()
	if err != nil {
		return err
	}
	sl := &p.slots[i]
	sl.socket, sl.key, sl.interest, sl.mode, sl.state = s, key, interest, mode, slotActive
	if err := p.impl.arm(i); err != nil {
		p.release(i)
		return err
	}
	sl.armed = true
	p.bySocket[s] = i
	return nil
}

// Modify changes the key, interest or mode of socket s, and re-arms a
// one-shot registration that has fired. Changing only the key of an armed
// registration makes no system call.
func (p *Poller) Modify(s windows.Handle, key uint64, interest Interest, mode Mode) error {
	if err := check(s, interest, mode); err != nil {
		return err
	}
	if err := p.lock(); err != nil {
		return err
	}
	defer p.mu.Unlock()
	i, ok := p.bySocket[s]
	if !ok {
		return ErrNotRegistered
	}
	sl := &p.slots[i]
	sl.key = key
	if sl.armed && sl.interest == interest && sl.mode == mode {
		return nil
	}
	sl.interest, sl.mode = interest, mode
	if err := p.impl.arm(i); err != nil {
		return err
	}
	sl.armed = true
	return nil
}

// Delete removes socket s. It returns at once, also while other goroutines
// Wait; the poller frees the registration when the OS confirms. No event of
// s is dequeued after Delete returns (a Wait that dequeued one just before
// may still return it). Call it before closesocket.
func (p *Poller) Delete(s windows.Handle) error {
	if err := p.lock(); err != nil {
		return err
	}
	defer p.mu.Unlock()
	i, ok := p.bySocket[s]
	if !ok {
		return ErrNotRegistered
	}
	return p.drop(i)
}

// drop unmaps slot i and starts its removal.
func (p *Poller) drop(i int32) error {
	sl := &p.slots[i]
	delete(p.bySocket, sl.socket)
	sl.state = slotDeleting
	done, err := p.impl.remove(i)
	if done {
		p.release(i)
	}
	return err
}

// lock locks p, unless it is closed.
func (p *Poller) lock() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return ErrClosed
	}
	return nil
}

func check(s windows.Handle, interest Interest, mode Mode) error {
	switch {
	case s == windows.InvalidHandle || s == 0:
		return errors.New("poller: invalid socket handle")
	case interest&^(Readable|Writable|HangUp) != 0:
		return fmt.Errorf("poller: interest %v: only Readable, Writable and HangUp can be asked for", interest)
	case mode > OneShotEdge:
		return fmt.Errorf("poller: unknown mode %v", mode)
	}
	return nil
}

func (p *Poller) alloc() (int32, error) {
	if n := len(p.free); n > 0 {
		i := p.free[n-1]
		p.free = p.free[:n-1]
		return i, nil
	}
	if len(p.slots) >= maxSlots {
		return -1, fmt.Errorf("poller: more than %d registrations", maxSlots)
	}
	if len(p.slots) == cap(p.slots) {
		// Double: append grows a large slice by a quarter, and each copy
		// left behind stays in the working set.
		p.slots = slices.Grow(p.slots, len(p.slots))
	}
	p.slots = append(p.slots, slot{})
	return int32(len(p.slots) - 1), nil
}

// release frees slot i for reuse under a new generation.
func (p *Poller) release(i int32) {
	sl := &p.slots[i]
	gen := sl.gen + 1
	afd := sl.afd.reset()
	*sl = slot{gen: gen, afd: afd}
	p.free = append(p.free, i)
}

// rawEntry is OVERLAPPED_ENTRY with its pointer as a plain number: the OS
// puts IDs there, which the garbage collector must not take for pointers.
type rawEntry struct {
	key        uintptr
	overlapped uintptr
	internal   uintptr
	bytes      uint32
}

const _ = -(unsafe.Sizeof(rawEntry{}) - unsafe.Sizeof(sockstate.OverlappedEntry{})) // same size

// Wait waits up to timeout (forever if negative) for events, fills events
// with them and returns how many. It returns 0 and a nil error on a timeout
// or a Wake, and ErrClosed once the poller is closed. It does not allocate
// when it returns events.
func (p *Poller) Wait(events []Event, timeout time.Duration) (int, error) {
	if err := p.lock(); err != nil {
		return 0, err
	}
	if len(events) == 0 {
		p.mu.Unlock()
		// A packet dequeued with nowhere to go would be an event lost.
		return 0, errors.New("poller: Wait needs room for at least one event")
	}
	p.waiters.Add(1)
	p.impl.flush() // re-arm what the caller has handled since its last Wait
	p.mu.Unlock()
	defer p.waiters.Done()

	var raw [64]rawEntry
	deadline := time.Now().Add(timeout)
	for {
		ms := uint32(windows.INFINITE)
		if timeout >= 0 {
			ms = millis(time.Until(deadline))
		}
		max := min(len(events), len(raw)) // one event at most a packet
		var got uint32
		err := sockstate.GetQueuedCompletionStatusEx(p.port, (*sockstate.OverlappedEntry)(unsafe.Pointer(&raw[0])), uint32(max), &got, ms, false)
		if err == windows.WAIT_TIMEOUT {
			return 0, nil
		}
		if err != nil {
			return 0, fmt.Errorf("poller: GetQueuedCompletionStatusEx: %w", err)
		}
		n, woken, closed := p.deliver(raw[:got], events)
		switch {
		case closed:
			return 0, ErrClosed
		case n > 0 || woken:
			return n, nil
		case timeout >= 0 && !time.Now().Before(deadline):
			return 0, nil
		}
	}
}

// deliver turns dequeued packets into events.
func (p *Poller) deliver(raw []rawEntry, events []Event) (n int, woken, closed bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range raw {
		switch raw[i].key {
		case wakeKey:
			woken = true
			continue
		case closeKey:
			closed = true
			continue
		}
		if ev, ok := p.impl.translate(raw[i]); ok {
			events[n] = ev
			n++
		}
	}
	if closed {
		p.post(closeKey) // for the next Wait
	}
	if n == 0 {
		p.impl.flush() // nothing for the caller: re-arm before waiting again
	}
	return n, woken, closed
}

// millis rounds d up to whole milliseconds, so that a short timeout is not
// a busy poll.
func millis(d time.Duration) uint32 {
	if d <= 0 {
		return 0
	}
	ms := (d + time.Millisecond - 1) / time.Millisecond
	return uint32(min(ms, math.MaxUint32-1))
}

// Wake makes one Wait return at once (with the events it has, maybe none).
func (p *Poller) Wake() error {
	if err := p.lock(); err != nil {
		return err
	}
	defer p.mu.Unlock()
	return p.post(wakeKey)
}

func (p *Poller) post(key uintptr) error {
	return windows.PostQueuedCompletionStatus(p.port, 0, key, nil)
}

// Close wakes every Wait, which returns ErrClosed, waits for them to
// return, removes every registration and releases the poller's handles.
// The sockets stay open: they are the caller's.
func (p *Poller) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return ErrClosed
	}
	p.closed = true
	err := p.post(closeKey)
	p.mu.Unlock()
	p.waiters.Wait()

	p.mu.Lock()
	defer p.mu.Unlock()
	for s, i := range p.bySocket {
		delete(p.bySocket, s)
		p.slots[i].state = slotDeleting
		if done, _ := p.impl.remove(i); done {
			p.release(i)
		}
	}
	p.impl.close()
	if cerr := windows.CloseHandle(p.port); err == nil {
		err = cerr
	}
	return err
}
