package docs

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// A block is one fenced shell block of a markdown page.
type block struct {
	file string   // the page, from the repository root
	line int      // the opening fence's line, from 1
	tags []string // from the <!-- doc-test: … --> line before the fence
	text string   // the lines between the fences
}

func (b block) String() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

func (b block) has(tag string) bool { return slices.Contains(b.tags, tag) }

// shellInfo are the fence info strings of shell blocks.
var shellInfo = map[string]bool{"sh": true, "bash": true, "shell": true, "console": true}

// knownTags are the tags a block may carry (doc.go says what each means).
var knownTags = map[string]bool{
	"daemon": true, "slow": true, "gpu": true, "grpcurl": true, "tls": true, "suite": true,
}

const (
	tagOpen  = "<!-- doc-test:"
	tagClose = "-->"
)

var (
	errUnclosed = errors.New("fence not closed")
	errTag      = errors.New("bad doc-test tag")
)

// parseBlocks returns the shell blocks of the markdown page src, in order.
// A tag line must be directly followed by a shell block's fence, and its
// tags must be known: a misspelt tag would otherwise run a block it meant to
// gate.
func parseBlocks(file string, src []byte) ([]block, error) {
	var (
		blocks  []block
		cur     *block // the shell block being read
		inFence bool   // inside any fence
		body    strings.Builder
		tags    []string // of the tag line just read
		tagLine int
	)
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trim := strings.TrimSpace(line)
		if inFence {
			if trim == "```" {
				inFence = false
				if cur != nil {
					cur.text = body.String()
					blocks = append(blocks, *cur)
					cur = nil
				}
				continue
			}
			if cur != nil {
				body.WriteString(line)
				body.WriteByte('\n')
			}
			continue
		}
		if info, ok := strings.CutPrefix(trim, "```"); ok {
			inFence = true
			lang, _, _ := strings.Cut(strings.TrimSpace(info), " ")
			if shellInfo[lang] {
				cur = &block{file: file, line: n, tags: tags}
				body.Reset()
			} else if tags != nil {
				return nil, fmt.Errorf("%s:%d: %w: it precedes a %q block, not a shell block", file, tagLine, errTag, lang)
			}
			tags = nil
			continue
		}
		if tags != nil && trim != "" {
			return nil, fmt.Errorf("%s:%d: %w: not directly followed by a shell block", file, tagLine, errTag)
		}
		if rest, ok := strings.CutPrefix(trim, tagOpen); ok {
			list, ok := strings.CutSuffix(rest, tagClose)
			if !ok {
				return nil, fmt.Errorf("%s:%d: %w: want %s TAG … %s on one line", file, n, errTag, tagOpen, tagClose)
			}
			tags = strings.Fields(list)
			if len(tags) == 0 {
				return nil, fmt.Errorf("%s:%d: %w: no tag", file, n, errTag)
			}
			for _, tag := range tags {
				if !knownTags[tag] {
					return nil, fmt.Errorf("%s:%d: %w: unknown tag %q", file, n, errTag, tag)
				}
			}
			tagLine = n
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if inFence {
		return nil, fmt.Errorf("%s: %w", file, errUnclosed)
	}
	if tags != nil {
		return nil, fmt.Errorf("%s:%d: %w: not followed by a shell block", file, tagLine, errTag)
	}
	return blocks, nil
}

func TestParseBlocks(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want []block // file "p.md"
		err  error
	}{
		{"plain", "text\n```sh\necho a\necho b\n```\n", []block{{line: 2, text: "echo a\necho b\n"}}, nil},
		{"other fences skipped", "```toml\n[a]\n```\n```go\n```sh\n```\n```bash\nls\n```\n",
			[]block{{line: 7, text: "ls\n"}}, nil},
		{"tagged", "<!-- doc-test: daemon slow -->\n```sh\ncuzk status\n```\n```sh\nx\n```\n",
			[]block{{line: 2, tags: []string{"daemon", "slow"}, text: "cuzk status\n"}, {line: 5, text: "x\n"}}, nil},
		{"blank line between tag and fence", "<!-- doc-test: gpu -->\n\n```sh\nx\n```\n",
			[]block{{line: 3, tags: []string{"gpu"}, text: "x\n"}}, nil},
		{"unknown tag", "<!-- doc-test: gpus -->\n```sh\nx\n```\n", nil, errTag},
		{"empty tag", "<!-- doc-test: -->\n```sh\nx\n```\n", nil, errTag},
		{"tag before prose", "<!-- doc-test: slow -->\ntext\n```sh\nx\n```\n", nil, errTag},
		{"tag before a toml block", "<!-- doc-test: slow -->\n```toml\nx\n```\n", nil, errTag},
		{"tag at the end", "```sh\nx\n```\n<!-- doc-test: slow -->\n", nil, errTag},
		{"unclosed", "```sh\nx\n", nil, errUnclosed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseBlocks("p.md", []byte(tc.src))
			if !errors.Is(err, tc.err) {
				t.Fatalf("error %v, want %v", err, tc.err)
			}
			for i := range tc.want {
				tc.want[i].file = "p.md"
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("blocks\n%+v\nwant\n%+v", got, tc.want)
			}
		})
	}
}
