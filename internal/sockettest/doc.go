// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

// Package sockettest holds the loopback socket helpers that the tests of
// several packages of this module share: the same functions on Windows
// (Winsock handles) and on Linux (descriptors).
package sockettest
