// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"errors"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate"
)

// maxWineClients is the most connections under Wine; see the package doc.
const maxWineClients = 3000

// connLimit returns the most connections (clients, or idle ones) that this
// process can run, and why, if it is fewer than maxClients.
func connLimit() (int, string) {
	if underWine() {
		return maxWineClients, "under Wine each client holds an OS thread and each connection two sockets in this process, and Wine runs out of file descriptors near 4,000 threads"
	}
	return maxClients, ""
}

// underWine reports whether the program runs under Wine: only Wine's
// ntdll.dll has the wine_get_version export.
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

// missingBackend reports whether err says that this Windows lacks the
// backend asked for.
func missingBackend(err error) bool {
	return errors.Is(err, sockstate.ErrNotSupported) || errors.Is(err, errors.ErrUnsupported)
}
