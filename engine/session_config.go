package engine

import "cairn/engine/internal/config"

// sessionConfig is config.json as a session read it: once, at its first
// file tool, undo or redo, and again on ReloadConfig (config.Cache).
type sessionConfig = config.Cache

// config is the session's config, read from config.json on first use.
func (s *Session) config() (Config, error) {
	cfg, err := s.cfg.Get(s.ws.s.Config)
	if err == nil && s.opts.Limit != nil {
		cfg = s.opts.Limit(cfg)
	}
	return cfg, err
}

// ReloadConfig reads config.json again for the session's file tools, undo
// and redo, which read it once otherwise. A file that cannot be read or is
// not valid is an error, and the session keeps the config it had.
func (s *Session) ReloadConfig() error {
	cfg, err := s.ws.s.Config()
	if err != nil {
		return err
	}
	s.cfg.Set(cfg)
	return nil
}
