package i18n

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/number"
)

// Localizer renders messages for one reader.
type Localizer struct {
	cat      *Catalogue
	compiled map[string]*compiled
	tag      language.Tag
	lang     string
	zone     *time.Location
	loc      *goi18n.Localizer
	printer  *message.Printer
}

func newLocalizer(c *Catalogue, lang string, zone *time.Location) *Localizer {
	tag := language.Make(lang)
	return &Localizer{
		cat: c, lang: lang, zone: zone, tag: tag, compiled: c.compiled[lang],
		loc:     goi18n.NewLocalizer(c.bundle, lang),
		printer: message.NewPrinter(tag),
	}
}

// Lang is the reader's language code.
func (l *Localizer) Lang() string { return l.lang }

// Zone is the reader's time zone.
func (l *Localizer) Zone() *time.Location { return l.zone }

// Catalogue is the catalogue l reads from.
func (l *Localizer) Catalogue() *Catalogue { return l.cat }

// T renders message id with named arguments given as pairs:
// T("mail.turn.subject", "Game", name). A message that does not exist
// renders as its id in brackets (and is recorded, see Missing), never as
// an empty string or a panic.
func (l *Localizer) T(id string, pairs ...any) string {
	return l.render(id, nil, pairs)
}

// N renders a message with plural forms for count; {{.Count}} is the
// count in the reader's number format.
func (l *Localizer) N(id string, count int, pairs ...any) string {
	return l.render(id, &count, pairs)
}

func (l *Localizer) render(id string, count *int, pairs []any) string {
	if m, ok := l.compiled[id]; ok && !m.rich {
		value := func(name string) (string, bool) {
			for i := 0; i+1 < len(pairs); i += 2 {
				if k, _ := pairs[i].(string); k == name {
					return l.text(pairs[i+1]), true
				}
			}
			if name == "Count" && count != nil {
				return l.Num(*count), true
			}
			return "", false
		}
		if s, ok := m.render(l.tag, count, value); ok {
			return s
		}
	}
	data := make(map[string]any, len(pairs)/2+1)
	for i := 0; i+1 < len(pairs); i += 2 {
		if k, ok := pairs[i].(string); ok {
			data[k] = l.text(pairs[i+1])
		}
	}
	cfg := &goi18n.LocalizeConfig{MessageID: id, TemplateData: data}
	if count != nil {
		cfg.PluralCount = *count
		if _, set := data["Count"]; !set {
			data["Count"] = l.Num(*count)
		}
	}
	s, err := l.loc.Localize(cfg)
	if err != nil {
		var nf *goi18n.MessageNotFoundErr
		if errors.As(err, &nf) {
			l.cat.noteMissing(id)
		}
		if s == "" {
			return "[" + id + "]"
		}
	}
	return s
}

// text is a placeholder's value as the reader reads it: integers in
// their number format.
func (l *Localizer) text(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case int:
		return l.Num(v)
	case int64:
		return l.Num(int(v))
	case fmt.Stringer:
		return v.String()
	}
	return fmt.Sprint(v)
}

// Num is an integer in the reader's format (1,234 / 1.234).
func (l *Localizer) Num(n int) string {
	if n > -1000 && n < 1000 {
		// No grouping below a thousand: skip the formatter's cost.
		if n < 0 {
			return "−" + strconv.Itoa(-n)
		}
		return strconv.Itoa(n)
	}
	s := l.printer.Sprint(number.Decimal(n))
	return strings.Replace(s, "-", "−", 1)
}

// Decimal is f rounded to places decimals in the reader's format: the
// reader's decimal separator and grouping (3.4 / 3,4; 1,234.5 /
// 1.234,5), and a minus sign for a negative number. Rounded to nothing,
// a negative number is 0, never −0.
func (l *Localizer) Decimal(f float64, places int) string {
	scale := math.Pow(10, float64(places))
	f = math.Round(f*scale) / scale
	if f == 0 {
		f = 0 // no −0
	}
	s := l.printer.Sprint(number.Decimal(f, number.MinFractionDigits(places), number.MaxFractionDigits(places)))
	return strings.Replace(s, "-", "−", 1)
}

// Signed is n with its sign always shown (+3, −2, 0), as score changes
// are written.
func (l *Localizer) Signed(n int) string {
	if n > 0 {
		return "+" + l.Num(n)
	}
	return l.Num(n)
}

// Percent is a fraction 0..1 as a whole percentage in the reader's
// format ("45 %" / "45%").
func (l *Localizer) Percent(f float64) string {
	return l.T("common.percent", "N", l.Num(int(f*100+0.5)))
}

// Time is t in the reader's zone with its date, clock and the zone named:
// "Thu 26 Nov 2026 23:00 UTC", "do 26 nov 2026 23:00 CET".
func (l *Localizer) Time(t time.Time) string {
	t = t.In(l.zone)
	return l.T("time.datetime",
		"Weekday", l.T("time.weekday."+strconv.Itoa(int(t.Weekday()))),
		"Day", strconv.Itoa(t.Day()),
		"Month", l.T("time.month."+strconv.Itoa(int(t.Month()))),
		"Year", strconv.Itoa(t.Year()),
		"Clock", t.Format("15:04"),
		"Zone", zoneName(t))
}

// Date is t's date in the reader's zone: "26 Nov 2026".
func (l *Localizer) Date(t time.Time) string {
	t = t.In(l.zone)
	return l.T("time.date",
		"Day", strconv.Itoa(t.Day()),
		"Month", l.T("time.month."+strconv.Itoa(int(t.Month()))),
		"Year", strconv.Itoa(t.Year()))
}

// ISODate is t's date in the reader's zone as YYYY-MM-DD, for places
// where it must sort (tables, file names); it is the same in every
// language.
func (l *Localizer) ISODate(t time.Time) string { return t.In(l.zone).Format("2006-01-02") }

// zoneName is the zone's abbreviation ("CET", "UTC"), or its offset
// where the zone has none: Go writes "+03" or "-0530", read as "UTC+3",
// "UTC−5:30".
func zoneName(t time.Time) string {
	abbr := t.Format("MST")
	if abbr == "" || (abbr[0] != '+' && abbr[0] != '-') {
		return abbr
	}
	sign := "+"
	if abbr[0] == '-' {
		sign = "−"
	}
	digits := abbr[1:]
	hours, mins := digits, ""
	if len(digits) > 2 {
		hours, mins = digits[:2], digits[2:]
	}
	out := "UTC" + sign + strings.TrimLeft(hours, "0")
	if strings.TrimLeft(hours, "0") == "" {
		out += "0"
	}
	if mins != "" && mins != "00" {
		out += ":" + mins
	}
	return out
}

// Span is a duration in words, the two largest units: "3 days 2 hours",
// "4 minutes"; under a minute it is "less than a minute".
func (l *Localizer) Span(d time.Duration) string { return l.span(d, "") }

// In is a time ahead in words: "in 3 days 2 hours" (German: "in 3 Tagen
// 2 Stunden", the units' case after a preposition).
func (l *Localizer) In(d time.Duration) string {
	return l.T("time.in", "Span", l.span(d, "_after"))
}

// Ago is a time past in words: "3 days ago", "vor 3 Tagen".
func (l *Localizer) Ago(d time.Duration) string {
	return l.T("time.ago", "Span", l.span(d, "_after"))
}

func (l *Localizer) span(d time.Duration, form string) string {
	if d < 0 {
		d = -d
	}
	if d < time.Minute {
		return l.T("duration.less_than_minute" + form)
	}
	days := int(d / (24 * time.Hour))
	hours := int(d % (24 * time.Hour) / time.Hour)
	mins := int(d % time.Hour / time.Minute)
	var parts []string
	switch {
	case days > 0:
		parts = append(parts, l.N("duration.days"+form, days))
		if hours > 0 {
			parts = append(parts, l.N("duration.hours"+form, hours))
		}
	case hours > 0:
		parts = append(parts, l.N("duration.hours"+form, hours))
		if mins > 0 {
			parts = append(parts, l.N("duration.minutes"+form, mins))
		}
	default:
		parts = append(parts, l.N("duration.minutes"+form, mins))
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return l.T("duration.pair", "A", parts[0], "B", parts[1])
}

// List joins items with the reader's "and": "Ann, Bob and Cid".
func (l *Localizer) List(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return l.T("common.list_and", "Init", strings.Join(items[:len(items)-1], l.T("common.list_separator")), "Last", items[len(items)-1])
}

// Errorf is a convenience for errors whose text is a message: the error
// says the message in the reader's language.
func (l *Localizer) Errorf(id string, pairs ...any) error {
	return fmt.Errorf("%s", l.T(id, pairs...))
}
