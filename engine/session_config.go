package engine

import "sync"

// sessionConfig is config.json as a session read it: once, at its first
// file tool, undo or redo, and again on ReloadConfig. A config that could
// not be read is not kept, so the next call reads it again.
type sessionConfig struct {
	mu  sync.Mutex // a leaf: held only while the file is read
	cfg *Config
}

// config is the session's config, read from config.json on first use.
func (s *Session) config() (Config, error) {
	c := &s.cfg
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cfg != nil {
		return *c.cfg, nil
	}
	cfg, err := s.ws.s.Config()
	if err != nil {
		return Config{}, err
	}
	c.cfg = &cfg
	return cfg, nil
}

// ReloadConfig reads config.json again; the session's file tools, undo and
// redo use it from then on. A session reads config.json once, at its first
// file tool, undo or redo, so an edit of the file takes effect in a
// session open at the time only once it is reloaded. When the file cannot
// be read or is not valid, the error is returned and the session keeps the
// config it had.
func (s *Session) ReloadConfig() error {
	cfg, err := s.ws.s.Config()
	if err != nil {
		return err
	}
	s.cfg.mu.Lock()
	s.cfg.cfg = &cfg
	s.cfg.mu.Unlock()
	return nil
}
