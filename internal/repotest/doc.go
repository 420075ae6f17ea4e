// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

// Package repotest holds tests of the repository as a whole, not of one
// package: that no doc link dangles in the documentation that pkg.go.dev
// and go doc show for GOOS=linux and GOOS=windows.
package repotest
