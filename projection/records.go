package projection

import "github.com/veetbot/veetbrowser/observation"

// How each record of the canonical observation is shown in a view.

func modelRegion(g observation.Region, compact bool) Region {
	name, cut := clip(g.Name, nameCap)
	kind := g.Kind
	if compact && kind == "heading" && g.Level > 0 {
		kind = "" // only a heading has a level
	}
	return Region{Ref: viewRef(g.Ref, compact), Kind: kind, Level: g.Level, Name: name, NameTruncated: cut || g.NameTruncated,
		Summary: g.Summary, SummaryTruncated: g.SummaryTruncated}
}

func modelControl(c observation.Control, compact bool) Control {
	name, cut := clip(c.Name, nameCap)
	role := c.Role
	if compact && role == "link" {
		role = "" // the compact record's default role: most of a reading page's controls are links
	}
	return Control{
		Ref: viewRef(c.Ref, compact), Role: role, Name: name, NameTruncated: cut || c.NameTruncated,
		Disabled: c.Disabled, Checked: c.Checked, Selected: c.Selected, Expanded: c.Expanded,
		Pressed: c.Pressed, Required: c.Required, Readonly: c.Readonly, Focused: c.Focused,
		Chosen: c.Chosen, ChosenMore: c.ChosenMore,
	}
}

// viewRef is how a view writes a reference: 1.9.0 writes it compact
// (observation.CompactRef), which browser_act takes as the full one.
func viewRef(ref string, compact bool) string {
	if compact {
		return observation.CompactRef(ref)
	}
	return ref
}

// valueCap is the display cap of a field's value (tool version 1.9.0, the
// read_values grant), in encoded bytes: a 256-unit value of any script
// keeps its control within a 1 KiB view.
const valueCap = 320

// modelValue is a control's value as a view shows it: within valueCap
// encoded bytes, a cut flagged. Its bytes count with the control's record:
// a control with a value is still one record, shown whole or skipped.
func modelValue(c observation.Control) (*string, bool) {
	if c.Value == nil {
		return nil, false
	}
	v, cut := clip(*c.Value, valueCap)
	return &v, cut || c.ValueTruncated
}
