package projection

// The coverage records of a view, in compact form.

// Coverage is the compact control coverage.
type Coverage struct {
	Offset           int    `json:"offset"`
	Scanned          int    `json:"scanned"`
	ScanLimitReached bool   `json:"scan_limit_reached,omitempty"`
	Limit            string `json:"limit,omitempty"`
	Ended            bool   `json:"ended,omitempty"`
	// InScrollContainers (tool version 1.9.0): observation.ControlCoverage's.
	InScrollContainers int `json:"in_scroll_containers,omitempty"`
}

// RegionCoverage is region coverage in lossless compact form.
type RegionCoverage struct {
	Version          int    `json:"version,omitempty"` // 1.9.0 leaves it out when implied (lean.go)
	Scope            string `json:"scope,omitempty"`
	ScannedNodes     int    `json:"scanned_nodes,omitempty"`
	NodeLimitReached bool   `json:"node_limit_reached,omitempty"`
	Omitted          int    `json:"omitted,omitempty"`
	Resumed          bool   `json:"resumed,omitempty"`
	Ended            bool   `json:"ended,omitempty"`
	// InScrollContainers (tool version 1.9.0): observation.RegionCoverage's.
	InScrollContainers int `json:"in_scroll_containers,omitempty"`
}

// TextCoverage is text coverage in lossless compact form.
type TextCoverage struct {
	Version          int    `json:"version,omitempty"` // 1.9.0 leaves it out when implied (lean.go)
	Scope            string `json:"scope,omitempty"`
	ScannedNodes     int    `json:"scanned_nodes,omitempty"`
	InspectedUnits   int    `json:"inspected_units,omitempty"`
	NodeLimitReached bool   `json:"node_limit_reached,omitempty"`
	TextLimitReached bool   `json:"text_limit_reached,omitempty"`
	ByteLimitReached bool   `json:"byte_limit_reached,omitempty"`
	OmittedBytes     int    `json:"omitted_bytes,omitempty"`
	Resumed          bool   `json:"resumed,omitempty"`
	Ended            bool   `json:"ended,omitempty"`
	FirstContinues   bool   `json:"first_continues,omitempty"`
	LastCut          bool   `json:"last_cut,omitempty"`
	ByteBound        int    `json:"byte_bound,omitempty"`
	// InScrollContainers (tool version 1.9.0): observation.TextCoverage's.
	InScrollContainers int `json:"in_scroll_containers,omitempty"`
}
