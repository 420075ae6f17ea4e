// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build sockstate_psnmodel

package sockstate

import "github.com/sockstate/sockstate/internal/psnmodel"

// Built with -tags sockstate_psnmodel, for this module's own tests only, the
// binding calls the reference model of ProcessSocketNotifications
// (testdata/psnmodel) instead of ws2_32.dll's export.
func init() {
	m, err := psnmodel.Load()
	if err != nil {
		panic("sockstate: built with -tags sockstate_psnmodel, the reference model for sockstate's own tests: " + err.Error())
	}
	procProcessSocketNotifications = m.Proc()
	psnmodel.Active = m
}
