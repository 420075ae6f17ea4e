//go:build generate

package winsock

//go:generate go tool mkwinsyscall -output zsyscall_windows.go syscall_windows.go
