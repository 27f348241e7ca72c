package audit

// MaxSessions bounds Config.Sessions.
const MaxSessions = 1000
