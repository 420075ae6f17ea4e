module github.com/sockstate/sockstate

go 1.26.0

require golang.org/x/sys v0.49.0

tool golang.org/x/sys/windows/mkwinsyscall
