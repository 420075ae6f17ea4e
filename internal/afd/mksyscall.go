//go:build generate

package afd

//go:generate go tool mkwinsyscall -output zsyscall_windows.go syscall_windows.go
