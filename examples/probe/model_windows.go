//go:build sockstate_psnmodel

package main

import "github.com/sockstate/sockstate/internal/psnmodel"

func init() { implementation = psnmodel.Active.Name() + ", not Windows" }
