package gen

import (
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
)

const (
	nameLetters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	nameDigits  = "0123456789"
	nameInner   = nameLetters + nameDigits + "_.-"
)

// NameComponent generates valid pool names and subpool short names of 1 to maxLen
// characters: OSMO's character rule, never "--", never the reserved "shared". The
// alphabet leans on '-' so that near-delimiters ("a-b", "a-.-b") come up often.
func NameComponent(maxLen int) gopter.Gen {
	return gen.IntRange(1, maxLen).FlatMap(func(v any) gopter.Gen {
		n := v.(int)
		return gen.SliceOfN(n, gen.IntRange(0, 1<<16)).Map(func(picks []int) string {
			return buildComponent(picks)
		})
	}, reflectString)
}

// buildComponent turns picks into a valid component of len(picks) characters.
func buildComponent(picks []int) string {
	b := make([]byte, len(picks))
	for i, p := range picks {
		switch {
		case i == 0:
			b[i] = nameLetters[p%len(nameLetters)]
		case i == len(picks)-1:
			alnum := nameLetters + nameDigits
			b[i] = alnum[p%len(alnum)]
		case p%4 == 0 && b[i-1] != '-':
			b[i] = '-'
		default:
			c := nameInner[p%len(nameInner)]
			if c == '-' && b[i-1] == '-' {
				c = '.'
			}
			b[i] = c
		}
	}
	if string(b) == "shared" {
		b[0] = 'S'
	}
	return string(b)
}
