// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package main

import "github.com/sockstate/sockstate/poller"

// missingBackends are the backends that Linux lacks: Windows's.
func missingBackends() []poller.Backend {
	return []poller.Backend{poller.AFD, poller.SocketNotifications}
}
