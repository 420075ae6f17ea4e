// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package repotest

import (
	"go/ast"
	"go/build"
	"go/doc"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const module = "github.com/sockstate/sockstate"

// link is what a doc link looks like in plain text once the parser has
// failed to resolve it: [Name], [Name.Method], [pkg.Name], [path/to/pkg].
var link = regexp.MustCompile(`\[\*?[A-Za-z_][\w./-]*\]`)

// TestDocLinks parses the documentation of every package of the module as
// go doc and pkg.go.dev see it for linux/amd64 and windows/amd64 (the
// files those build contexts select) and fails on every doc link that does
// not resolve there: a name declared only for another GOOS, a typo, or a
// package that is not imported.
func TestDocLinks(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, goos := range []string{"linux", "windows"} {
		ctx := build.Default
		ctx.GOOS, ctx.GOARCH, ctx.CgoEnabled = goos, "amd64", false
		err := filepath.WalkDir(root, func(dir string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return err
			}
			if name := d.Name(); dir != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			pkg, err := ctx.ImportDir(dir, 0)
			if err != nil || len(pkg.GoFiles) == 0 {
				return nil // no package here for this GOOS
			}
			rel, err := filepath.Rel(root, dir)
			if err != nil {
				return err
			}
			importPath := path.Join(module, filepath.ToSlash(rel))
			for _, bad := range danglingLinks(t, dir, pkg.GoFiles, importPath) {
				t.Errorf("GOOS=%s %s: %s", goos, importPath, bad)
			}
			checked++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if checked < 4 {
		t.Fatalf("checked %d packages: the walk missed the module", checked)
	}
	t.Logf("%d package views checked", checked)
}

// danglingLinks returns, for each doc comment of the package made of files
// in dir, the doc links that do not resolve.
func danglingLinks(t *testing.T, dir string, files []string, importPath string) []string {
	fset := token.NewFileSet()
	var parsed []*ast.File
	for _, f := range files {
		af, err := parser.ParseFile(fset, filepath.Join(dir, f), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, af)
	}
	p, err := doc.NewFromFiles(fset, parsed, importPath)
	if err != nil {
		t.Fatal(err)
	}
	var bad []string
	check := func(where, text string) {
		for _, l := range unresolved(p.Parser().Parse(text)) {
			bad = append(bad, where+": "+l)
		}
	}
	check("package doc", p.Doc)
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			check(strings.Join(v.Names, ","), v.Doc)
		}
	}
	funcs := func(fs []*doc.Func) {
		for _, f := range fs {
			name := f.Name
			if f.Recv != "" {
				name = strings.TrimPrefix(f.Recv, "*") + "." + name
			}
			check(name, f.Doc)
		}
	}
	values(p.Consts)
	values(p.Vars)
	funcs(p.Funcs)
	for _, typ := range p.Types {
		check(typ.Name, typ.Doc)
		values(typ.Consts)
		values(typ.Vars)
		funcs(typ.Funcs)
		funcs(typ.Methods)
	}
	return bad
}

// unresolved returns the bracketed names left in the plain text of d: the
// parser turns every link it resolves into a DocLink.
func unresolved(d *comment.Doc) []string {
	var out []string
	var texts func([]comment.Text)
	texts = func(ts []comment.Text) {
		for _, x := range ts {
			switch x := x.(type) {
			case comment.Plain:
				out = append(out, link.FindAllString(string(x), -1)...)
			case comment.Italic:
				out = append(out, link.FindAllString(string(x), -1)...)
			case *comment.Link:
				texts(x.Text)
			case *comment.DocLink:
				texts(x.Text)
			}
		}
	}
	for _, b := range d.Content {
		switch b := b.(type) {
		case *comment.Paragraph:
			texts(b.Text)
		case *comment.Heading:
			texts(b.Text)
		case *comment.List:
			for _, item := range b.Items {
				for _, ib := range item.Content {
					if para, ok := ib.(*comment.Paragraph); ok {
						texts(para.Text)
					}
				}
			}
		}
	}
	return out
}
