package winsock

// socketError is SOCKET_ERROR (-1) as the low 32 bits of a return register.
const socketError = uintptr(^uint32(0))

// ws2_32 calls that golang.org/x/sys/windows does not bind; mkwinsyscall
// writes zsyscall_windows.go from these lines (see mksyscall.go).

//sys	accept(s windows.Handle, addr *windows.RawSockaddrAny, addrlen *int32) (fd windows.Handle, err error) [failretval==windows.InvalidHandle] = ws2_32.accept
//sys	ioctlsocket(s windows.Handle, cmd uint32, arg *uint32) (err error) [failretval==socketError] = ws2_32.ioctlsocket
//sys	recv(s windows.Handle, buf []byte, flags int32) (n int32, err error) [failretval==-1] = ws2_32.recv
//sys	send(s windows.Handle, buf []byte, flags int32) (n int32, err error) [failretval==-1] = ws2_32.send
//sys	wsaPoll(fds *PollFd, nfds uint32, timeout int32) (n int32, err error) [failretval==-1] = ws2_32.WSAPoll
