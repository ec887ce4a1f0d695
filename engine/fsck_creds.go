package engine

// fsckCredentials names a credentials.json that cannot be read: the HTTP
// server cannot check paired tokens until it is repaired.
func (s *Store) fsckCredentials(bad reporter) {
	if _, err := readCredentials(s.fsys, CredentialsFile); err != nil {
		bad(CredentialsFile, "%v", err)
	}
}
