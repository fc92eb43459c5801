/* The recurrent ops on the CPU backend: select is a view at the index's
 * offset (no copy), stack the operands side by side along a new dim,
 * zeros_state a zero fill, and nn.LSTM / nn.GRU equal PyTorch's: a
 * 2-layer bidirectional LSTM (batch first) and GRU (seq first) of
 * deterministic params against PyTorch 1.13's float64 output, h_n and c_n
 * (the tables below; the values are ((i * 37 + k) % 11 - 5) / 10 for
 * element i of tensor k, in the operand order of ops.h), in float64 to
 * 1e-12 and in float32 to 1e-5. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "graph/ops_rnn.h"
#include "support/host_tensor.h"
#include "support/op_check.h"

/* Reference values from torch.nn.LSTM(2, 2, 2, batch_first=True,
 * bidirectional=True) and torch.nn.GRU(2, 2, 2, bidirectional=True) on
 * x [2, 3, 2] / [3, 2, 2], in float64. */
/* lstm output [2, 3, 4] */
static const double lstm_output[] = {0.04298137127552356, -0.25616640782109051, -0.35658235148032252, 0.058685706741011083, 0.097975162931719123, -0.32271568180317417, -0.32634282855541519, 0.061810056758378543, 0.12273797532385575, -0.34878428727126937, -0.22309891736618803, 0.097636244075937309, 0.15186773632483686, -0.26363124111320296, -0.35775330460496468, 0.069536439824734841, 0.14423846380452596, -0.32420807574208749, -0.34769559273599049, 0.056022347822356461, 0.13533628099191994, -0.3390471105488243, -0.29073671558187858, 0.058887485611906605};
/* lstm h_n [4, 2, 2] */
static const double lstm_h_n[] = {0.0011704867871488403, -0.10017373480825065, -0.047230293004796219, -0.054220326710386887, -0.17477413736950417, 0.11774631546526944, -0.17652776425916597, 0.1463044576749723, 0.12273797532385575, -0.34878428727126937, 0.13533628099191994, -0.3390471105488243, -0.35658235148032252, 0.058685706741011083, -0.35775330460496468, 0.069536439824734841};
/* lstm c_n [4, 2, 2] */
static const double lstm_c_n[] = {0.0020346506019368812, -0.33398814156342438, -0.068200617428389745, -0.22081444617149396, -0.54043496228187016, 0.27962195167759579, -0.59659683434528832, 0.36484032850308545, 0.27654953704137453, -0.60116680865939243, 0.30354941278883868, -0.60049241367468975, -0.6719690797807375, 0.17515414270359037, -0.69596449350542677, 0.21206641947373669};
/* gru output [3, 2, 4] */
static const double gru_output[] = {-0.29336221303101628, -0.098014836284452622, -0.085866534089230784, -0.055880901737766137, 0.34112029277906297, -0.15981547830467802, -0.14270185390957399, -0.073962610904818205, -0.12580005386950954, -0.075041646585852301, -0.062757847888548268, 0.042834166377453409, 0.38411976357804112, -0.12157678887190936, -0.15816141445697976, -0.041234143407770069, 0.0014463185632151987, -0.041826596399293522, -0.031619418232776038, 0.19997443770014098, 0.40081937034041959, -0.088672966109624995, -0.15945055512316444, 0.035335638032940236};
/* gru h_n [4, 2, 2] */
static const double gru_h_n[] = {0.38467519199729805, -0.1372655818495879, 0.47141872146481995, -0.11873469584055517, -0.22765087242415863, 0.33154989945361418, -0.41229722075188857, 0.17547606075761882, 0.0014463185632151987, -0.041826596399293522, 0.40081937034041959, -0.088672966109624995, -0.085866534089230784, -0.055880901737766137, -0.14270185390957399, -0.073962610904818205};

static double value_of(int64_t i, int k) { return (double)((i * 37 + k) % 11 - 5) * 0.1; }

static kbv_tensor filled(kbv_dtype dt, int ndim, const int64_t *shape, int k)
{
    kbv_tensor t = kbv_test_tensor(dt, ndim, shape);
    for (int64_t i = 0; i < kbv_test_numel(&t); i++)
        kbv_test_set(&t, i, value_of(i, k));
    return t;
}

/* A 2-layer bidirectional RNN of input 2, hidden 2 over 3 steps and batch
 * 2, result `result`, checked against ref. */
static void check_rnn(kbv_dtype dt, kbv_op op, bool batch_first, int result, const double *ref,
                      int64_t ref_n)
{
    const int64_t T = 3, B = 2, I = 2, H = 2, L = 2, D = 2, G = op == KBV_OP_LSTM ? 4 : 3;
    const int states = op == KBV_OP_LSTM ? 2 : 1, n = 1 + states + 4 * (int)(L * D);
    kbv_backend *be = kbv_test_backend(dt);
    kbv_tensor args[1 + 2 + 16];
    const int64_t xs[3] = {batch_first ? B : T, batch_first ? T : B, I};
    const int64_t hs[3] = {L * D, B, H};
    int k = 0;
    args[k] = filled(dt, 3, xs, k);
    k++;
    for (int s = 0; s < states; s++, k++)
        args[k] = filled(dt, 3, hs, k);
    for (int l = 0; l < L; l++)
        for (int d = 0; d < D; d++) {
            const int64_t wi[2] = {G * H, l == 0 ? I : D * H}, wh[2] = {G * H, H}, b[1] = {G * H};
            args[k] = filled(dt, 2, wi, k);
            k++;
            args[k] = filled(dt, 2, wh, k);
            k++;
            args[k] = filled(dt, 1, b, k);
            k++;
            args[k] = filled(dt, 1, b, k);
            k++;
        }
    assert_int_equal(k, n);
    kbv_node_def nd = {.op = op, .n_args = n, .i = {result, L, 1, batch_first}};
    const int64_t ys[3] = {batch_first ? B : T, batch_first ? T : B, D * H};
    kbv_tensor out = kbv_test_tensor(dt, 3, result == 0 ? ys : hs);
    assert_int_equal(kbv_test_numel(&out), ref_n);
    assert_int_equal(kbv_test_run_op(be, op, &nd, args, n, &out), KBV_OK);
    double tol = dt == KBV_F64 ? 1e-12 : 1e-5;
    for (int64_t i = 0; i < ref_n; i++)
        kbv_test_assert_close(kbv_test_get(&out, i), ref[i], tol, kbv_dtype_name(dt), i);
    for (int a = 0; a < n; a++)
        free(args[a].data);
    free(out.data);
    be->destroy(be);
}

#define REF(name) name, (int64_t)(sizeof name / sizeof name[0])

static void test_lstm_matches_torch(void **state)
{
    (void)state;
    for (int p = 0; p < 2; p++) {
        kbv_dtype dt = p ? KBV_F32 : KBV_F64;
        check_rnn(dt, KBV_OP_LSTM, true, 0, REF(lstm_output));
        check_rnn(dt, KBV_OP_LSTM, true, 1, REF(lstm_h_n));
        check_rnn(dt, KBV_OP_LSTM, true, 2, REF(lstm_c_n));
    }
}

static void test_gru_matches_torch(void **state)
{
    (void)state;
    for (int p = 0; p < 2; p++) {
        kbv_dtype dt = p ? KBV_F32 : KBV_F64;
        check_rnn(dt, KBV_OP_GRU, false, 0, REF(gru_output));
        check_rnn(dt, KBV_OP_GRU, false, 1, REF(gru_h_n));
    }
}

/* A wrong operand count or a GRU asked for c_n is refused. */
static void test_rnn_refuses_bad_nodes(void **state)
{
    (void)state;
    kbv_rnn_dims r;
    const int64_t x[3] = {3, 2, 2};
    kbv_node_def lstm = {.op = KBV_OP_LSTM, .i = {0, 2, 1, 0}};
    assert_int_equal(kbv_rnn_dims_of(&lstm, 19, 3, x, 2, &r), KBV_OK);
    assert_true(r.seq == 3 && r.batch == 2 && r.dirs == 2 && r.gates == 4);
    assert_int_not_equal(kbv_rnn_dims_of(&lstm, 18, 3, x, 2, &r), KBV_OK);
    kbv_node_def gru = {.op = KBV_OP_GRU, .i = {2, 1, 0, 0}};
    assert_int_not_equal(kbv_rnn_dims_of(&gru, 6, 3, x, 2, &r), KBV_OK);
    gru.i[0] = 1;
    assert_int_equal(kbv_rnn_dims_of(&gru, 6, 3, x, 2, &r), KBV_OK);
}

/* x[1] of [3, 2, 4] and out[:, -1, :]: views at the index's offset. */
static void test_select_is_a_view(void **state)
{
    (void)state;
    kbv_backend *be = kbv_test_backend(KBV_F32);
    const int64_t s[3] = {3, 2, 4};
    kbv_tensor a = filled(KBV_F32, 3, s, 0);
    kbv_node_def first = {.op = KBV_OP_SELECT, .i = {0, 1}};
    kbv_tensor v = {.dtype = KBV_F32, .ndim = 2, .shape = {2, 4}};
    assert_int_equal(kbv_test_run_op(be, KBV_OP_SELECT, &first, &a, 1, &v), KBV_OK);
    assert_ptr_equal(v.data, (float *)a.data + 8);
    assert_true(v.stride[0] == 4 && v.stride[1] == 1);
    kbv_node_def last = {.op = KBV_OP_SELECT, .i = {1, -1}};
    kbv_tensor w = {.dtype = KBV_F32, .ndim = 2, .shape = {3, 4}};
    assert_int_equal(kbv_test_run_op(be, KBV_OP_SELECT, &last, &a, 1, &w), KBV_OK);
    assert_ptr_equal(w.data, (float *)a.data + 4);
    assert_true(w.stride[0] == 8 && w.stride[1] == 1);
    for (int64_t i = 0; i < 12; i++)
        assert_true(kbv_test_get(&w, i) == (double)(float)value_of((i / 4) * 8 + 4 + i % 4, 0));
    kbv_node_def beyond = {.op = KBV_OP_SELECT, .i = {1, 2}};
    assert_int_not_equal(kbv_test_run_op(be, KBV_OP_SELECT, &beyond, &a, 1, &w), KBV_OK);
    free(a.data);
    be->destroy(be);
}

/* torch.stack of three [2, 3] along dims 0 and 2. */
static void test_stack(void **state)
{
    (void)state;
    kbv_backend *be = kbv_test_backend(KBV_F64);
    const int64_t s[2] = {2, 3};
    kbv_tensor in[3];
    for (int k = 0; k < 3; k++)
        in[k] = filled(KBV_F64, 2, s, k);
    for (int dim = 0; dim <= 2; dim += 2) {
        kbv_node_def nd = {.op = KBV_OP_STACK, .n_args = 3, .i = {dim == 2 ? -1 : 0}};
        const int64_t os0[3] = {3, 2, 3}, os2[3] = {2, 3, 3};
        kbv_tensor out = kbv_test_tensor(KBV_F64, 3, dim ? os2 : os0);
        assert_int_equal(kbv_test_run_op(be, KBV_OP_STACK, &nd, in, 3, &out), KBV_OK);
        for (int k = 0; k < 3; k++)
            for (int64_t i = 0; i < 6; i++) {
                int64_t at = dim ? i * 3 + k : k * 6 + i;
                assert_true(kbv_test_get(&out, at) == value_of(i, k));
            }
        free(out.data);
    }
    for (int k = 0; k < 3; k++)
        free(in[k].data);
    be->destroy(be);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lstm_matches_torch),
        cmocka_unit_test(test_gru_matches_torch),
        cmocka_unit_test(test_rnn_refuses_bad_nodes),
        cmocka_unit_test(test_select_is_a_view),
        cmocka_unit_test(test_stack),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
