// Package fleetprocs holds a test of replicas as separate processes:
// three of them on one SQLite catalogue (sqlsource) and one Redis
// (redisstore), each the test binary started again. It lives in the
// examples module, which has every dependency it needs, so that the
// redisstore module requires neither sqlsource nor SQLite.
package fleetprocs
