"""The engine service: owns every match. The pure rules live in engine_service.rules."""
