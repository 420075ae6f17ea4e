// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

// Command psnfacts asks ProcessSocketNotifications the questions that the
// public evidence leaves open (internal/psnfacts) and prints what it did as
// a Markdown table. The GitHub workflow runs it on Windows and keeps the
// table; built with -tags sockstate_psnmodel it asks the reference model.
package main

import (
	"fmt"
	"os"

	"golang.org/x/sys/windows"

	"github.com/sockstate/sockstate"
	"github.com/sockstate/sockstate/internal/psnfacts"
)

func main() {
	psnfacts.Child() // the questions asked in a process of their own
	v := windows.RtlGetVersion()
	fmt.Printf("# ProcessSocketNotifications on Windows %d.%d.%d\n\n", v.MajorVersion, v.MinorVersion, v.BuildNumber)
	if err := sockstate.LoadProcessSocketNotifications(); err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	facts, err := psnfacts.Record()
	fmt.Println("| question (testdata/psnmodel/SPEC.md switch) | answer | seen |")
	fmt.Println("|---|---|---|")
	for _, f := range facts {
		fmt.Printf("| %s | %s | %s |\n", f.Switch, f.Answer, f.Detail)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "psnfacts:", err)
		os.Exit(1)
	}
}
