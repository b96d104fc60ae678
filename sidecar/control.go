package sidecar

import (
	"net/http"

	"github.com/veetbot/veetbrowser/controlroom"
)

// Each tenant's control room (docs/controlroom.md): a person's page of the
// live sessions of the tenant's leases (their live pictures and the
// model's last views), served under /control/TENANT/. A tenant's bearer
// token buys a one-time login link to its own room only (POST
// /v1/control/login); the room's cookie is scoped to that path and known
// to that room alone, so no tenant sees another's sessions. Approvals stay
// with the approvals route.

// controlPath is where tenant's room is served.
func controlPath(tenant string) string { return "/control/" + tenant + "/" }

// roomOf returns tenant's control room, opening it on first use.
func (s *Server) roomOf(tenant string) *controlroom.Room {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rooms == nil {
		s.rooms = map[string]*controlroom.Room{}
	}
	r := s.rooms[tenant]
	if r == nil {
		r = controlroom.New(controlroom.Options{Path: controlPath(tenant)})
		s.rooms[tenant] = r
	}
	return r
}

// controlLogin issues a one-time login link to the tenant's room.
func (s *Server) controlLogin(w http.ResponseWriter, r *http.Request, tenant string) {
	link := controlPath(tenant) + s.roomOf(tenant).NewLogin()[1:]
	writeJSON(w, http.StatusOK, struct {
		Login string `json:"login"`
	}{link})
}

// control serves a tenant's room; a tenant with none is not found.
func (s *Server) control(w http.ResponseWriter, r *http.Request) {
	tenant := r.PathValue("tenant")
	s.mu.Lock()
	room := s.rooms[tenant]
	s.mu.Unlock()
	if room == nil {
		http.NotFound(w, r)
		return
	}
	http.StripPrefix(controlPath(tenant)[:len(controlPath(tenant))-1], room).ServeHTTP(w, r)
}
