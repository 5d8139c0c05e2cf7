/* test/modules/hint_recorder: hotplus test module, not for production */
\echo Use "CREATE EXTENSION hint_recorder" to load this file. \quit

-- An index access method that is btree but for its aminsert, which records each entry's
-- key (the first column, as text) and the executor's hint `indexUnchanged`.
CREATE FUNCTION hint_recorder_handler(internal)
RETURNS index_am_handler
AS 'MODULE_PATHNAME', 'hint_recorder_handler'
LANGUAGE C STRICT;

CREATE ACCESS METHOD hint_recorder TYPE INDEX HANDLER hint_recorder_handler;

-- btree's operator classes for the types the test indexes: the same operators and support
-- functions under this access method.
CREATE OPERATOR CLASS int4_ops DEFAULT FOR TYPE int4 USING hint_recorder AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 btint4cmp(int4, int4);
CREATE OPERATOR CLASS text_ops DEFAULT FOR TYPE text USING hint_recorder AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 bttextcmp(text, text);

-- What this backend's hint_recorder indexes were given since the last reset, in order.
CREATE FUNCTION hint_recorder_log(OUT n int, OUT index regclass, OUT key text, OUT unchanged bool)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'hint_recorder_log'
LANGUAGE C STRICT VOLATILE;

CREATE FUNCTION hint_recorder_reset()
RETURNS void
AS 'MODULE_PATHNAME', 'hint_recorder_reset'
LANGUAGE C STRICT VOLATILE;
