package sidecar

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are what /metrics exports: no label ever holds a tenant, a
// profile, a lease or anything a page said.
type metrics struct {
	registry *prometheus.Registry
	leases   prometheus.Gauge
	browsers prometheus.Gauge
	calls    *prometheus.CounterVec   // by tool and outcome code ("ok" for success)
	latency  *prometheus.HistogramVec // by tool
	requests *prometheus.CounterVec   // by route pattern and status
}

func newMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		leases:   prometheus.NewGauge(prometheus.GaugeOpts{Name: "veetbrowser_leases", Help: "Live leases held by this process."}),
		browsers: prometheus.NewGauge(prometheus.GaugeOpts{Name: "veetbrowser_browsers", Help: "Browsers this process runs or is attached to for its leases."}),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "veetbrowser_calls_total", Help: "Tool calls by tool and outcome code."},
			[]string{"tool", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "veetbrowser_call_seconds", Help: "Tool call latency.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 20, 40}}, []string{"tool"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "veetbrowser_http_requests_total", Help: "HTTP requests by route and status."},
			[]string{"route", "status"}),
	}
	m.registry.MustRegister(m.leases, m.browsers, m.calls, m.latency, m.requests,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}
