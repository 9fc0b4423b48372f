package quota

import (
	"encoding/json"
	"math"
	"testing"
)

func TestParseQuantity(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Quantity
		wantErr string
	}{
		{in: "0", want: 0},
		{in: "100", want: 100},
		{in: "-40", want: -40},
		{in: "Unlimited", want: Unlimited},
		{in: "UNLIMITED", want: Unlimited},
		{in: "9223372036854775807", want: Unlimited},
		{in: "-9223372036854775808", want: math.MinInt64},
		{in: "", wantErr: `invalid quantity "": must be an integer or Unlimited`},
		{in: "+5", wantErr: `invalid quantity "+5": must be an integer or Unlimited`},
		{in: " 5", wantErr: `invalid quantity " 5": must be an integer or Unlimited`},
		{in: "1e3", wantErr: `invalid quantity "1e3": must be an integer or Unlimited`},
		{in: "-1", want: -1},
		{in: "9223372036854775808", wantErr: `invalid quantity "9223372036854775808": is out of the int64 range`},
		{in: "inf", wantErr: `invalid quantity "inf": must be an integer or Unlimited`},
	} {
		got, err := ParseQuantity(tc.in)
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("ParseQuantity(%q) error %v, want %s", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseQuantity(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestQuantityArithmeticSaturates(t *testing.T) {
	for _, tc := range []struct {
		got, want Quantity
	}{
		{Unlimited.Add(5), Unlimited},
		{Quantity(5).Add(Unlimited), Unlimited},
		{Unlimited.Sub(5), Unlimited},
		{Unlimited.Sub(Unlimited), Unlimited},
		{Quantity(5).Sub(Unlimited), math.MinInt64},
		{Quantity(math.MaxInt64 - 1).Add(5), Unlimited},
		{Quantity(math.MinInt64 + 1).Sub(5), math.MinInt64},
		{Quantity(10).Sub(50), -40},
	} {
		if tc.got != tc.want {
			t.Errorf("got %v, want %v", tc.got, tc.want)
		}
	}
	if !Unlimited.IsUnlimited() || Quantity(1).IsUnlimited() {
		t.Fatal("IsUnlimited")
	}
}

func TestQuantityText(t *testing.T) {
	out, err := json.Marshal(map[string]Quantity{"q": Unlimited, "r": -3})
	if err != nil || string(out) != `{"q":"Unlimited","r":"-3"}` {
		t.Fatalf("%s, %v", out, err)
	}
	var back map[string]Quantity
	if err := json.Unmarshal(out, &back); err != nil || back["q"] != Unlimited || back["r"] != -3 {
		t.Fatalf("%v, %v", back, err)
	}
	var q Quantity
	if err := q.UnmarshalText([]byte("x")); err == nil {
		t.Fatal("accepted x")
	}
}

// FuzzParseQuantity: whatever parses prints back to text that parses to the same value.
func FuzzParseQuantity(f *testing.F) {
	for _, s := range []string{"0", "-1", "Unlimited", "unlimited", "9223372036854775807", "+1", "", "1_000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := ParseQuantity(s)
		if err != nil {
			return
		}
		back, err := ParseQuantity(q.String())
		if err != nil || back != q {
			t.Fatalf("ParseQuantity(%q) = %v; back %v, %v", s, q, back, err)
		}
	})
}
