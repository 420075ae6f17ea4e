// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build sockstate_psnmodel

package poller

// Built with -tags sockstate_psnmodel (the module's own tests), the
// sockstate package calls the reference model of ProcessSocketNotifications,
// and this backend's name says so.
func init() { psnName = "SocketNotifications (reference model)" }
