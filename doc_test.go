package poolgate

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryExportedIdentifierIsDocumented holds the library to its own rule: every
// library package has a doc.go with the package comment (a command says what it does
// in the comment above package main), and every exported identifier of a
// library package has a doc comment that go doc shows, starting with the identifier's
// name (grouped constants and variables may share their group's comment).
func TestEveryExportedIdentifierIsDocumented(t *testing.T) {
	var missing []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || strings.HasPrefix(path, "examples") {
			if path != "." {
				return filepath.SkipDir
			}
		}
		files, err := parseLibraryFiles(path)
		if err != nil {
			return err
		}
		if len(files) > 0 && files[0].file.Name.Name != "main" {
			missing = append(missing, checkPackage(path, files)...)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range missing {
		t.Error(m)
	}
}

// parsedFile is one non-test Go file of a directory.
type parsedFile struct {
	fset *token.FileSet
	name string
	file *ast.File
}

func parseLibraryFiles(dir string) ([]parsedFile, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []parsedFile
	fset := token.NewFileSet()
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		out = append(out, parsedFile{fset: fset, name: n, file: f})
	}
	return out, nil
}

func checkPackage(dir string, files []parsedFile) []string {
	var out []string
	hasDoc := false
	for _, f := range files {
		hasDoc = hasDoc || (f.name == "doc.go" && f.file.Doc != nil)
	}
	if !hasDoc {
		out = append(out, dir+": no doc.go with the package comment")
	}
	for _, pf := range files {
		fset := pf.fset
		for _, decl := range pf.file.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() || (d.Recv != nil && !exportedRecv(d.Recv)) {
					continue
				}
				if !startsWithName(d.Doc, d.Name.Name) {
					out = append(out, fset.Position(d.Pos()).String()+": "+d.Name.Name+" needs a doc comment starting with its name")
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						doc := s.Doc
						if doc == nil && len(d.Specs) == 1 {
							doc = d.Doc
						}
						if !startsWithName(doc, s.Name.Name) {
							out = append(out, fset.Position(s.Pos()).String()+": type "+s.Name.Name+" needs a doc comment starting with its name")
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() && s.Doc == nil && s.Comment == nil && d.Doc == nil {
								out = append(out, fset.Position(n.Pos()).String()+": "+n.Name+" needs a doc comment")
							}
						}
					}
				}
			}
		}
	}
	return out
}

func exportedRecv(fl *ast.FieldList) bool {
	if len(fl.List) == 0 {
		return false
	}
	t := fl.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.IsExported()
		default:
			return false
		}
	}
}

func startsWithName(doc *ast.CommentGroup, name string) bool {
	if doc == nil {
		return false
	}
	text := doc.Text()
	for _, prefix := range []string{"", "A ", "An ", "The "} {
		if strings.HasPrefix(text, prefix+name+" ") || strings.HasPrefix(text, prefix+name+",") ||
			strings.HasPrefix(text, prefix+name+"\n") || strings.HasPrefix(text, prefix+name+":") {
			return true
		}
	}
	return false
}
