// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"github.com/sockstate/sockstate"
	"github.com/sockstate/sockstate/poller"
)

// missingBackends are the backends that this Windows lacks.
func missingBackends() []poller.Backend {
	if sockstate.Supported() {
		return nil
	}
	return []poller.Backend{poller.SocketNotifications}
}
