// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

// Package psnmodel loads the reference model of ProcessSocketNotifications
// (testdata/psnmodel, specified in testdata/psnmodel/SPEC.md) for
// sockstate's own tests, where the OS lacks the export.
//
// It is turned on only by building with -tags sockstate_psnmodel, and then
// needs SOCKSTATE_PSN_MODEL_DLL to name the model's DLL; scripts/test.sh
// builds it. A user's build never contains the model: the files that use
// this package carry that build tag. Runs against the model are labelled
// "model" and never count as Windows passes.
package psnmodel

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"unsafe"

	"golang.org/x/sys/windows"
)

// The environment the model is configured by.
const (
	EnvDLL      = "SOCKSTATE_PSN_MODEL_DLL" // the path of psnmodel.dll
	EnvSwitches = "SOCKSTATE_PSN_MODEL"     // "name=value,...", read by the DLL
)

// Model is the loaded model DLL.
type Model struct {
	dll *windows.LazyDLL
	// Switches are the model's switches in effect, "name=value,...".
	Switches string
}

// Active is the model that the binding calls, set by the sockstate package
// when it is built with -tags sockstate_psnmodel; nil otherwise.
var Active *Model

// Load loads the DLL that SOCKSTATE_PSN_MODEL_DLL names and reads its
// switches; a bad SOCKSTATE_PSN_MODEL is an error.
func Load() (*Model, error) {
	path := os.Getenv(EnvDLL)
	if path == "" {
		return nil, errors.New(EnvDLL + " is unset: it must name testdata/psnmodel's DLL (scripts/test.sh builds it)")
	}
	m := &Model{dll: windows.NewLazyDLL(path)}
	if err := m.dll.Load(); err != nil {
		return nil, fmt.Errorf("loading the reference model %s: %w", path, err)
	}
	var buf [512]byte
	m.call("PsnModelSwitches", uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	m.Switches = windows.BytePtrToString(&buf[0])
	if strings.HasPrefix(m.Switches, "error") {
		return nil, errors.New("reference model: " + m.Switches)
	}
	return m, nil
}

func (m *Model) call(name string, args ...uintptr) uintptr {
	r, _, _ := m.dll.NewProc(name).Call(args...)
	return r
}

// Proc is the model's ProcessSocketNotifications.
func (m *Model) Proc() *windows.LazyProc { return m.dll.NewProc("ProcessSocketNotifications") }

// Registrations returns how many registrations the model holds.
func (m *Model) Registrations() int { return int(m.call("PsnModelRegistrations")) }

// Switch returns the value of one switch, such as Switch("level").
func (m *Model) Switch(name string) string {
	for _, kv := range strings.Split(m.Switches, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v
		}
	}
	return ""
}

// Name describes the model for logs and labels.
func (m *Model) Name() string {
	return "reference model of ProcessSocketNotifications (testdata/psnmodel; " + m.Switches + ")"
}
