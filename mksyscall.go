//go:build generate

package sockstate

//go:generate go tool mkwinsyscall -output zsyscall_windows.go syscall_windows.go
