"""Real servers for the integration tests, started and stopped by the project itself."""
