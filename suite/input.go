package suite

import (
	"context"
	"fmt"
)

// Scenarios of tool version 1.9.0's typed inputs: fields that take their
// value only from keystrokes in the browser's own segments, judged by
// what the server receives when the form is posted.

func inputScenarios() []scenario {
	return []scenario{
		{
			// A booking form with native date and time inputs, which show
			// the locale's format and take no pasted text, and a number
			// of nights pre-filled with 1.
			id: "booking-date-time",
			pages: map[string]func() string{"": static(`<title>Seaside Inn · Book a room</title>
<style>body{font:15px sans-serif;max-width:520px;margin:24px auto} .field{margin:12px 0} .field label{display:block;font-weight:600}</style>
<header><a href="#">Seaside Inn</a> · <a href="#">Rooms</a> · <a href="#">Contact</a></header>
<h1>Book a room</h1>
<form method="post" action="book" aria-label="Booking">
  <div class="field"><label for="checkin">Check-in date</label><input id="checkin" type="date" name="checkin" min="2012-01-01" required></div>
  <div class="field"><label for="arrival">Arrival time</label><input id="arrival" type="time" name="arrival" required></div>
  <div class="field"><label for="nights">Nights</label><input id="nights" type="number" name="nights" min="1" max="14" value="1"></div>
  <button>Book now</button>
</form>
<footer><p>Free cancellation until 48 hours before arrival.</p></footer>`)},
			expected: []string{"post:arrival=14:05&checkin=2012-09-10&nights=3"},
			approve:  []string{"Book now"},
			run: func(ctx context.Context, a *agent, base string) error {
				for _, f := range [][2]string{{"Check-in date", "2012-09-10"}, {"Arrival time", "14:05"}, {"Nights", "3"}} {
					if err := a.act(ctx, f[0], map[string]any{"kind": "type", "text": f[1]}); err != nil {
						return fmt.Errorf("typing into %s: %w", f[0], err)
					}
				}
				return a.click(ctx, "Book now")
			},
		},
	}
}
