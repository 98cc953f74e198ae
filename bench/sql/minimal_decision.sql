-- The least a decision can write (bench/decisions_api.py --floor): one transaction, prepared
-- statements, no audit linking (as if one appender linked the outbox in large batches).
\set rid random(1, :reviews)
BEGIN;
SELECT id, conversation_id, status, version, required_role, content_hash FROM review_requests WHERE id = :rid;
SELECT next_seq FROM conversations WHERE id = :rid FOR UPDATE;
UPDATE review_requests SET version = version + 1, closed_at = now() WHERE id = :rid;
INSERT INTO decisions (review_request_id, conversation_id, action, reason, reviewer_id, role, is_override, content_hash, idempotency_key, created_at)
  VALUES (:rid, :rid, 'approve', 'looks right', 1, 'security_reviewer', false, 'h', md5(random()::text), now());
INSERT INTO messages (conversation_id, seq, source, kind, content, prompt_tokens, completion_tokens, created_at)
  SELECT :rid, next_seq, 'ivan', 'decision', 'APPROVE by ivan (security_reviewer): looks right', 0, 0, now() FROM conversations WHERE id = :rid;
UPDATE conversations SET next_seq = next_seq + 1, status = 'running', updated_at = now() WHERE id = :rid;
INSERT INTO audit_outbox (at, actor, actor_role, action, conversation_id, review_request_id, content_hash, details)
  VALUES (now(), 'ivan', 'security_reviewer', 'decision.recorded', :rid, :rid, 'h', '{"action": "approve"}');
COMMIT;
