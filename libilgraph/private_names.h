/* Link names of libilgraph's internal functions. A static library exports every non-static
 * symbol to whatever links it, so internal names carry the library's prefix (with a double
 * underscore: not API) while the sources keep their short names. */
#ifndef CLRIE_ILGRAPH_PRIVATE_NAMES_H
#define CLRIE_ILGRAPH_PRIVATE_NAMES_H

#define il_append_new clrie_il__append_new
#define il_arena_alloc_chunk clrie_il__arena_alloc_chunk
#define il_arena_array clrie_il__arena_array
#define il_arena_finish clrie_il__arena_finish
#define il_arena_new_within clrie_il__arena_new_within
#define il_arena_reset clrie_il__arena_reset
#define il_arena_take_array clrie_il__arena_take_array
#define il_check_operands clrie_il__check_operands
#define il_check_types clrie_il__check_types
#define il_checker_new clrie_il__checker_new
#define il_check_alloc clrie_il__check_alloc
#define il_check_take_array clrie_il__check_take_array
#define il_check_take_block clrie_il__check_take_block
#define il_clause_detach clrie_il__clause_detach
#define il_collect_rets clrie_il__collect_rets
#define il_diag clrie_il__diag
#define il_graph_alloc clrie_il__graph_alloc
#define il_graph_append clrie_il__graph_append
#define il_graph_push_clause clrie_il__graph_push_clause
#define il_instr_alloc clrie_il__instr_alloc
#define il_layout_current clrie_il__layout_current
#define il_memo_field_is_static clrie_il__memo_field_is_static
#define il_memo_find clrie_il__memo_find
#define il_memo_init clrie_il__memo_init
#define il_memo_resolve clrie_il__memo_resolve
#define il_memo_signature clrie_il__memo_signature
#define il_memo_token_exists clrie_il__memo_token_exists
#define il_opcode_bytes clrie_il__opcode_bytes
#define il_opcode_decode clrie_il__opcode_decode
#define il_opcode_infos clrie_il__opcode_infos
#define il_operand_mask clrie_il__operand_mask
#define il_operand_sign clrie_il__operand_sign
#define il_parse_context clrie_il__parse_context
#define il_ref_set clrie_il__ref_set
#define il_refs_move clrie_il__refs_move
#define il_report clrie_il__report
#define il_return_local clrie_il__return_local
#define il_rets_to_branches clrie_il__rets_to_branches
#define il_stack_analyse clrie_il__stack_analyse
#define il_transform_end clrie_il__transform_end
#define il_switch_alloc clrie_il__switch_alloc

#endif
