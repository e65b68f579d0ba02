-- A conversation's prescription orders, newest first (the clinician console's visit page and
-- GET /api/provider/visits/{conversationId}/prescriptions; migration 060 indexes them by account only).
CREATE INDEX prescription_orders_conversation ON prescription_orders (conversation_id, created_at DESC, seq DESC);
