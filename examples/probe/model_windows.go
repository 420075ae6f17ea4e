// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build sockstate_psnmodel

package main

import "github.com/sockstate/sockstate/internal/psnmodel"

func init() { implementation = psnmodel.Active.Name() + ", not Windows" }
