package compare

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"jitterlab/internal/plural"
	"jitterlab/stats"
)

// hints say where to look when a figure differs, by its name's start.
var hints = []struct{ prefix, hint string }{
	{"progress_deficit", "its inputs starve or are overwritten at its server: its send rate or its server's input rule (client.corrector, server.inputs)"},
	{"hesitation", "its inputs starve or are overwritten at its server: its send rate or its server's input rule (client.corrector, server.inputs)"},
	{"judder", "its smoothing or its reconciliation differs from the model's (client.smoothing, client.alpha, client.replay)"},
	{"backward", "its reconciliation pulls the tank back where the model's does not (client.replay, client.predict)"},
	{"snap", "it snaps at another distance, or corrects more than the model (client.snap)"},
	{"local_response", "its input reaches the screen by another path (client.input_delay, client.smoothing)"},
	{"visible_lag", "its smoothing trails the prediction by another amount (client.alpha, client.smoothing)"},
	{"send_interval", "its send interval does not move as the model's: its corrector differs (client.corrector, client.band)"},
	{"tick_offset", "its clock sync reads another tick offset: its corrector differs (client.corrector, client.band)"},
}

func hint(name string) string {
	for _, h := range hints {
		if strings.HasPrefix(name, h.prefix) {
			return h.hint
		}
	}
	return "no known cause"
}

// maxNamed is how many of the largest differences the text names.
const maxNamed = 3

// WriteText prints the game beside the model, figure by figure, and names
// the largest differences.
func (r *Result) WriteText(w io.Writer) error {
	g := r.Game
	fmt.Fprintf(w, "%s: the game's %s over %.1f s beside the model on the same link and timeline (%s), seeds 1–%d\n",
		g.Name, plural.Of(uint64(len(g.Frames)), "telemetry frame"), g.Duration.Seconds(), plural.Of(uint64(len(g.Changes)), "change"), r.Seeds)
	if len(g.Ignored) > 0 {
		fmt.Fprintf(w, "not modelled: %s of a client's own (the model has one client): %s\n", plural.Of(uint64(len(g.Ignored)), "setting"), strings.Join(g.Ignored, "; "))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "figure\tgame\tmodel mean\tmodel, one run (%s %%)\t\n", percent(r.Level))
	in, known := 0, 0
	for _, f := range r.Figures {
		label := f.Label
		if f.Unit != "" {
			label += " (" + f.Unit + ")"
		}
		if f.NoData {
			fmt.Fprintf(tw, "%s\t%s\t%s\t\tno data\n", label, num(f.Game, f.Prec), num(f.Model.Mean, f.Prec))
			continue
		}
		known++
		verdict := "inside"
		if f.Inside {
			in++
		} else {
			verdict = fmt.Sprintf("outside (%+.1f spreads)", f.Away)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s to %s\t%s\n", label, num(f.Game, f.Prec), f.Model.Format(f.Prec),
			stats.Fixed(f.Lo, f.Prec), stats.Fixed(f.Hi, f.Prec), verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	switch {
	case known == 0:
		fmt.Fprintln(w, "no figure has a value in both the game and the model: nothing to judge")
	default:
		verdict := "inside"
		if in < known {
			verdict = "outside"
		}
		fmt.Fprintf(w, "%d of %d figures inside the model's interval for one run: the game falls %s the model\n", in, known, verdict)
		fmt.Fprintf(w, "(each interval at %s %%, so that all %d hold at once at %s %%: Bonferroni)\n", percent(r.Level), known, percent(Family))
	}
	out := r.Outside()
	if len(out) == 0 {
		_, err := fmt.Fprintln(w)
		return err
	}
	fmt.Fprintln(w, "largest differences:")
	for i, f := range out {
		if i == maxNamed {
			fmt.Fprintf(w, "  … and %d more outside\n", len(out)-i)
			break
		}
		side := "above"
		if f.Away < 0 {
			side = "below"
		}
		fmt.Fprintf(w, "  %s: the game's %s, the model's %s to %s, %.1f spreads %s: %s\n", f.Label, quantity(f, f.Game),
			stats.Fixed(f.Lo, f.Prec), quantity(f, f.Hi), math.Abs(f.Away), side, hint(f.Name))
	}
	_, err := fmt.Fprintln(w)
	return err
}

// percent is a confidence level in percent, to four digits: 95, 99.64.
func percent(level float64) string { return strconv.FormatFloat(100*level, 'g', 4, 64) }

func num(v float64, prec int) string {
	if math.IsNaN(v) {
		return "—"
	}
	return stats.Fixed(v, prec)
}

func quantity(f Figure, v float64) string {
	if f.Unit == "" {
		return num(v, f.Prec)
	}
	return num(v, f.Prec) + " " + f.Unit
}
