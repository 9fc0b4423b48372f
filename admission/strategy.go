package admission

import (
	"strconv"

	"github.com/poolgate/poolgate/internal/enum"
)

// Strategy is how a leaf queue's pending work waits for its turn. It is text-marshalled
// as its name, BestEffortFIFO or StrictFIFO (Kueue's spelling), so it reads the same in
// a host's configuration files.
type Strategy uint8

// The strategies. The zero Strategy is BestEffortFIFO, the default.
const (
	// BestEffortFIFO skips pending work that cannot be admitted and goes on with the
	// queue's later work.
	BestEffortFIFO Strategy = iota
	// StrictFIFO holds back every later item of the queue, lower priorities included,
	// while the queue's head stays pending, for quota, capacity or placement. A head
	// admitted with a preemption plan holds nothing back.
	StrictFIFO
)

// strategyRule is the rule every refused strategy breaks.
const strategyRule = "must be BestEffortFIFO or StrictFIFO"

// ParseStrategy parses BestEffortFIFO or StrictFIFO in any letter case. The empty
// string is an error here; UnmarshalText maps it to the default, BestEffortFIFO. A
// refusal is an *InputError of kind ErrInvalidValue.
func ParseStrategy(s string) (Strategy, error) {
	for _, v := range [...]Strategy{BestEffortFIFO, StrictFIFO} {
		if enum.EqualFold(s, v.String()) {
			return v, nil
		}
	}
	return BestEffortFIFO, inputErr(ErrInvalidValue, "strategy", s, strategyRule)
}

// String returns BestEffortFIFO or StrictFIFO, and Strategy(n) for an invalid value.
func (s Strategy) String() string {
	switch s {
	case BestEffortFIFO:
		return "BestEffortFIFO"
	case StrictFIFO:
		return "StrictFIFO"
	}
	return "Strategy(" + strconv.Itoa(int(s)) + ")"
}

// IsValid reports whether s is BestEffortFIFO or StrictFIFO.
func (s Strategy) IsValid() bool { return s <= StrictFIFO }

// MarshalText implements encoding.TextMarshaler. An invalid strategy is an error, so
// that it is never persisted.
func (s Strategy) MarshalText() ([]byte, error) {
	if !s.IsValid() {
		return nil, inputErr(ErrInvalidValue, "strategy", s.String(), strategyRule)
	}
	return []byte(s.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler: ParseStrategy, except that empty
// text is the default, BestEffortFIFO.
func (s *Strategy) UnmarshalText(text []byte) error {
	if len(text) == 0 {
		*s = BestEffortFIFO
		return nil
	}
	v, err := ParseStrategy(string(text))
	if err != nil {
		return err
	}
	*s = v
	return nil
}
