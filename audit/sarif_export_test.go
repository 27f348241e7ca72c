package audit

// VersionOf is versionOf, for the tests of Version's sources.
var VersionOf = versionOf
